// Package pgtest runs a real PostgreSQL for tests: Debian's binaries (initdb, pg_ctl) in a temporary folder, on a
// free port of 127.0.0.1, as the unprivileged postgres user when the tests run as root (initdb refuses root). The
// postgresql package provides them; .ci/setup installs it.
package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Server is a running PostgreSQL.
type Server struct {
	dir, bin, port string
	runAs          []string // runuser -u postgres --, when running as root
	dbs            atomic.Int64
}

var (
	once    sync.Once
	shared  *Server
	started error
)

// Start returns the PostgreSQL of this test binary, starting it on first use; it is stopped by Stop (call it
// from TestMain). Without the binaries the test is skipped, unless TWOFOLD_REQUIRE_POSTGRES=1 (CI) fails it.
func Start(t testing.TB) *Server {
	t.Helper()
	once.Do(func() { shared, started = start() })
	if started != nil {
		if os.Getenv("TWOFOLD_REQUIRE_POSTGRES") == "1" {
			t.Fatalf("PostgreSQL: %v", started)
		}
		t.Skipf("PostgreSQL: %v (install Debian's postgresql package, as .ci/setup does)", started)
	}
	return shared
}

// Stop stops the server if it was started.
func Stop() {
	if shared != nil {
		shared.run("pg_ctl", "-D", filepath.Join(shared.dir, "data"), "-m", "immediate", "-w", "stop")
		os.RemoveAll(shared.dir)
	}
}

func binaries() (string, error) {
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if _, err := exec.LookPath("initdb"); err == nil {
			return filepath.Dir(p), nil
		}
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(found) == 0 {
		return "", fmt.Errorf("no initdb on PATH or in /usr/lib/postgresql")
	}
	sort.Slice(found, func(i, j int) bool { // the newest version
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(found[i]))))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(found[j]))))
		return vi > vj
	})
	return filepath.Dir(found[0]), nil
}

func start() (*Server, error) {
	bin, err := binaries()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "twofold-pg-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, bin: bin}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root and there is no postgres user to run initdb as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
		s.runAs = []string{"runuser", "-u", "postgres", "--"}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s.port = strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	data := filepath.Join(dir, "data")
	if out, err := s.run("initdb", "-D", data, "-U", "twofold", "-A", "trust", "-E", "UTF8", "--no-sync"); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	if out, err := s.start(); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		return nil, fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	return s, nil
}

func (s *Server) run(name string, args ...string) ([]byte, error) {
	argv := append(append(append([]string{}, s.runAs...), filepath.Join(s.bin, name)), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = s.dir
	return cmd.CombinedOutput()
}

// Down stops the server, as a crash or a restart would; Up starts it again on the same port and data.
func (s *Server) Down(t testing.TB) {
	t.Helper()
	if out, err := s.run("pg_ctl", "-D", filepath.Join(s.dir, "data"), "-m", "fast", "-w", "stop"); err != nil {
		t.Fatalf("pg_ctl stop: %v\n%s", err, out)
	}
}

// Up starts the server again after Down.
func (s *Server) Up(t testing.TB) {
	t.Helper()
	if out, err := s.start(); err != nil {
		t.Fatalf("pg_ctl start: %v\n%s", err, out)
	}
}

func (s *Server) start() ([]byte, error) {
	return s.run("pg_ctl", "-D", filepath.Join(s.dir, "data"), "-l", filepath.Join(s.dir, "log"), "-w", "-t", "60", "start",
		"-o", "-F -p "+s.port+" -k "+s.dir+" -c listen_addresses=127.0.0.1 -c max_connections=200")
}

// URL is the address of a database on the server.
func (s *Server) URL(database string) string {
	return "postgres://twofold@127.0.0.1:" + s.port + "/" + database + "?sslmode=disable"
}

// NewDatabase creates an empty database for one test and returns its URL.
func (s *Server) NewDatabase(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	name := fmt.Sprintf("test_%d", s.dbs.Add(1))
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	return s.URL(name)
}
