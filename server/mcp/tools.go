package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"twofold/server/board"
	"twofold/server/errcode"
)

// call runs one tool. Arguments are decoded strictly: an unknown or mistyped argument is INVALID_BODY, answered
// as a tool error the agent can read.
func (s *Server) call(ctx context.Context, name string, raw []byte, c Call) (any, error) {
	h := s.Handlers
	switch name {
	case "get_profile":
		if err := decodeArgs(raw, &struct{}{}); err != nil {
			return nil, err
		}
		return h.Profile(), nil
	case "get_page":
		var a struct {
			Page string `json:"page"`
		}
		if err := decodeArgs(raw, &a); err != nil {
			return nil, err
		}
		if a.Page == "" {
			return nil, errcode.New(errcode.InvalidBody, "page is required", `pass {"page": "<id>"}; get_profile lists the pages`)
		}
		return h.Page(a.Page)
	case "list_writing":
		var a struct {
			Limit *int `json:"limit"`
		}
		if err := decodeArgs(raw, &a); err != nil {
			return nil, err
		}
		limit := 50
		if a.Limit != nil {
			if *a.Limit < 1 || *a.Limit > 50 {
				return nil, errcode.New(errcode.LimitInvalid, "limit must be an integer from 1 to 50", "leave limit out for the 50 newest posts")
			}
			limit = *a.Limit
		}
		if h.Writing == nil {
			hint := "get_profile lists the owner's links"
			if s.site.WritingPage != "" {
				hint = `read the owner's writing through get_page {"page": "` + s.site.WritingPage + `"} meanwhile`
			}
			return nil, errcode.New(errcode.NotFound, "the writing feed is not connected to this server yet", hint)
		}
		posts, err := h.Writing(ctx, limit)
		if err != nil {
			return nil, err
		}
		return map[string]any{"posts": posts}, nil
	case "list_collusion_notes":
		var a struct {
			Limit  *int   `json:"limit"`
			Before string `json:"before"`
			After  string `json:"after"`
		}
		if err := decodeArgs(raw, &a); err != nil {
			return nil, err
		}
		limit := board.DefaultPageSize
		if a.Limit != nil {
			limit = *a.Limit
		}
		caller := board.Caller{Via: board.ViaMCP, Addr: c.Client}
		switch {
		case a.After != "" && a.Before != "":
			return nil, errcode.New(errcode.IDInvalid, "before and after cannot be given together",
				"pass before to page back through older notes, or after to read what is newer than a note you have")
		case a.After != "":
			return h.Board.ListAfter(ctx, a.After, limit, caller)
		}
		return h.Board.List(ctx, a.Before, limit, caller)
	case "get_collusion_challenge":
		if err := decodeArgs(raw, &struct{}{}); err != nil {
			return nil, err
		}
		return h.Board.Challenge(board.Caller{Via: board.ViaMCP, Addr: c.Client})
	case "leave_collusion_note":
		var in board.NoteInput
		if err := decodeArgs(raw, &in); err != nil {
			return nil, err
		}
		return h.Board.Post(ctx, in, board.Caller{Via: board.ViaMCP, Addr: c.Client})
	case "get_collusion_thread":
		var a struct {
			ID string `json:"id"`
		}
		if err := decodeArgs(raw, &a); err != nil {
			return nil, err
		}
		return h.Board.Thread(ctx, a.ID)
	}
	return nil, errcode.Errorf(errcode.NotFound, "tools/list names the tools", "no tool %q", name)
}

func decodeArgs(raw []byte, v any) error {
	if len(raw) == 0 {
		return nil // nothing to decode: every argument is optional or checked by the tool
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errcode.New(errcode.InvalidBody, "the arguments do not fit the tool: "+argProblem(err),
			"send the arguments the tool's inputSchema describes (tools/list)")
	}
	return nil
}

func argProblem(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Field != "" {
		return fmt.Sprintf("%s must not be a %s", typeErr.Field, typeErr.Value)
	}
	return err.Error()
}
