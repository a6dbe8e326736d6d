// Package terminal lets a program started by make own the terminal's Ctrl-C. make passes the terminal's interrupt
// on to its recipe and then dies of it itself (exit status 130), however cleanly the program stopped. A program
// that takes the terminal's foreground (its own process group, made the terminal's foreground group) gets the
// Ctrl-C alone, stops cleanly, gives the terminal back, and make sees it exit 0.
package terminal

import (
	"os"
	"os/signal"

	"golang.org/x/sys/unix"
)

// Foreground makes this process the terminal's foreground process group when stdin is a terminal and it is asked
// to (TWOFOLD_FOREGROUND=1, which make run and make dev set), and returns how to give the terminal back. Elsewhere
// (no terminal, tests, a service manager) it does nothing.
func Foreground() (restore func()) {
	nothing := func() {}
	if os.Getenv("TWOFOLD_FOREGROUND") != "1" {
		return nothing
	}
	fd := int(os.Stdin.Fd())
	before, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	if err != nil || before != unix.Getpgrp() {
		return nothing // not a terminal, or started in the background (make run &): the shell keeps its terminal
	}
	// A process group that is not the foreground one is stopped by SIGTTOU when it sets the foreground: ignore it.
	signal.Ignore(unix.SIGTTOU)
	if err := unix.Setpgid(0, 0); err != nil {
		signal.Reset(unix.SIGTTOU)
		return nothing
	}
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPGRP, unix.Getpgrp()); err != nil {
		unix.Setpgid(0, before)
		signal.Reset(unix.SIGTTOU)
		return nothing
	}
	return func() {
		unix.IoctlSetPointerInt(fd, unix.TIOCSPGRP, before) // make's group again
		signal.Reset(unix.SIGTTOU)
	}
}
