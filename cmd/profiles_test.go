package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/fbc-project/fbc/internal/buildinfo"
	"github.com/fbc-project/fbc/validate/profile"
	"github.com/fbc-project/fbc/validate/profiles"
)

// profilesMain is this test binary run as fbc-profile: the real one,
// unless $FBC_TEST_PROFILES_FAULT names a way to misbehave, for the
// scripts that check what fbc does with a broken plugin:
//   - version: answers the hello as another build;
//   - garbage: answers the hello, then prints a line that is no message;
//   - crash: answers the hello, then panics on the first bundle;
//   - exit: answers the hello, then exits 0 without a word;
//   - endless: answers the hello, then starts a message that never ends;
//   - child: answers the hello, starts a child that keeps its output
//     open (its pid in $FBC_TEST_PROFILES_PIDFILE), writes a reason with
//     terminal escape sequences to standard error and exits 3.
//
// With $FBC_TEST_PROFILES_LOG set, each run adds a line to that file, for
// the scripts that count the runs fbc starts.
func profilesMain() int {
	if log := os.Getenv("FBC_TEST_PROFILES_LOG"); log != "" {
		f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return 2
		}
		_, err = fmt.Fprintln(f, "run")
		if err = errors.Join(err, f.Close()); err != nil {
			return 2
		}
	}
	fault := os.Getenv("FBC_TEST_PROFILES_FAULT")
	if fault == "" {
		return profile.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	}
	in := bufio.NewReader(os.Stdin)
	if _, err := in.ReadBytes('\n'); err != nil {
		return 2
	}
	version := buildinfo.Read().Identity()
	if fault == "version" {
		version = "v0.0.1-elsewhere"
	}
	hello, _ := json.Marshal(profiles.Response{Hello: &profiles.Hello{Protocol: profiles.Protocol, Version: version}})
	fmt.Printf("%s\n", hello)
	switch fault {
	case "garbage":
		fmt.Println("Checking bundles... done!")
		return 0
	case "crash":
		if _, err := in.ReadBytes('\n'); err == nil {
			panic("fbc-profile test crash: runtime error: index out of range [3] with length 3")
		}
		return 2
	case "exit":
		return 0
	case "endless":
		w := bufio.NewWriterSize(os.Stdout, 64<<10)
		w.WriteString(`{"warning":"`)
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		for {
			if _, err := w.Write(chunk); err != nil {
				return 2
			}
		}
	case "child":
		child := exec.Command("sleep", "300")
		child.Stdout, child.Stderr = os.Stdout, os.Stderr
		if err := child.Start(); err != nil {
			return 2
		}
		if err := os.WriteFile(os.Getenv("FBC_TEST_PROFILES_PIDFILE"), []byte(strconv.Itoa(child.Process.Pid)), 0o644); err != nil {
			return 2
		}
		fmt.Fprint(os.Stderr, "\x1b[31mfbc-profile test failure\x1b[0m:\tout of widgets\x1b]0;owned\x07\x1b[2J\n")
		return 3
	}
	return 0
}

func init() {
	// PATH without fbc-profile: $NOPROFILES holds only fbc, for the
	// scripts that run fbc without its plugin (env PATH=$NOPROFILES, and
	// env PATH=$ORIGPATH to go back).
	scriptSetups = append(scriptSetups, func(env *testscript.Env) error {
		fbc, err := exec.LookPath("fbc")
		if err != nil {
			return err
		}
		dir := filepath.Join(env.WorkDir, ".noprofiles")
		if err := os.Mkdir(dir, 0o755); err != nil {
			return err
		}
		// A link, not a symlink: fbc looks for fbc-profile next to the
		// path it was run by, with symlinks resolved.
		if err := os.Link(fbc, filepath.Join(dir, "fbc")); err != nil {
			return err
		}
		env.Setenv("NOPROFILES", dir)
		env.Setenv("ORIGPATH", env.Getenv("PATH"))
		return nil
	})
}
