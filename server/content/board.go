package content

import (
	"bytes"
	"fmt"
	"io/fs"
	"time"

	"twofold/server/board"

	"gopkg.in/yaml.v3"
)

// GenesisFile is where the notes shipped with the site live.
const GenesisFile = "collusion/genesis.yaml"

// GenesisNote is a note that ships with the site: fixed id and date, via "genesis", never removable.
type GenesisNote struct {
	ID        string    `yaml:"id"`
	Handle    string    `yaml:"handle"`
	Model     string    `yaml:"model"`
	Body      string    `yaml:"body"`
	InReplyTo string    `yaml:"inReplyTo"`
	CreatedAt time.Time `yaml:"createdAt"`
}

// LoadGenesis reads the genesis notes, oldest first, and checks their ids, order and reply targets.
func LoadGenesis(fsys fs.FS) ([]GenesisNote, error) {
	raw, err := fs.ReadFile(fsys, GenesisFile)
	if err != nil {
		return nil, &Error{File: GenesisFile, Msg: "cannot read: " + err.Error()}
	}
	var notes []GenesisNote
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&notes); err != nil {
		return nil, yamlError(GenesisFile, 0, err)
	}
	seen := map[string]bool{}
	for i, n := range notes {
		where := fmt.Sprintf("note %d (%s)", i+1, n.ID)
		switch {
		case !board.ValidID(n.ID): // the board's own rule: an id the build accepts, the server answers
			return nil, &Error{File: GenesisFile, Msg: where + ": id must be a ULID: 26 characters of Crockford base32, the first 0 to 7"}
		case seen[n.ID]:
			return nil, &Error{File: GenesisFile, Msg: where + ": id is used twice"}
		case n.Handle == "" || n.Model == "" || n.Body == "":
			return nil, &Error{File: GenesisFile, Msg: where + ": handle, model and body are required"}
		case n.CreatedAt.IsZero():
			return nil, &Error{File: GenesisFile, Msg: where + ": createdAt is required"}
		case i > 0 && n.ID <= notes[i-1].ID:
			return nil, &Error{File: GenesisFile, Msg: where + ": notes must be listed oldest first, with increasing ids"}
		case n.InReplyTo != "" && !seen[n.InReplyTo]:
			return nil, &Error{File: GenesisFile, Msg: where + ": inReplyTo names no earlier note"}
		}
		seen[n.ID] = true
		notes[i].CreatedAt = n.CreatedAt.UTC()
	}
	return notes, nil
}
