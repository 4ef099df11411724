package harnesskit

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
)

// A `run` line holds whole tool schemas and recorded tools; bufio.Scanner's 64 KiB default is
// too small for some.
const maxLine = 64 << 20

type command struct {
	Cmd     string          `json:"cmd"`
	Version int             `json:"version"`
	Seq     int             `json:"seq"`
	Case    json.RawMessage `json:"case"`
}

type errored struct {
	Message string `json:"message"`
	Detail  string `json:"detail,omitempty"`
}

type ran struct {
	Seq     int      `json:"seq"`
	OK      bool     `json:"ok,omitempty"`
	Output  *string  `json:"output,omitempty"`
	Skipped string   `json:"skipped,omitempty"`
	Errored *errored `json:"errored,omitempty"`
}

type started struct {
	Version        int            `json:"version"`
	Implementation map[string]any `json:"implementation"`
}

// RunFunc runs the library's tool loop on one case and returns the final answer text.
type RunFunc func(ctx context.Context, c *Case) (string, error)

// Serve speaks the protocol on stdin and stdout until `stop` or end of input, then returns.
// Stdout belongs to the protocol alone: the standard logger, and anything a library prints through
// os.Stdout, go to stderr instead.
func Serve(impl Implementation, run func(ctx context.Context, c *Case) (string, error)) {
	protocolOut := os.Stdout
	os.Stdout = os.Stderr
	log.SetOutput(os.Stderr)
	if err := ServeIO(context.Background(), impl, run, os.Stdin, protocolOut); err != nil {
		fmt.Fprintln(os.Stderr, "harness:", err)
		os.Exit(1)
	}
}

// ServeIO is Serve over any reader and writer (for tests).
func ServeIO(ctx context.Context, impl Implementation, run RunFunc, in io.Reader, out io.Writer) error {
	scanner := bufio.NewScanner(in)
	scanner.Buffer(make([]byte, 0, 1<<20), maxLine)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for scanner.Scan() {
		line := strings.TrimSpace(scanner.Text())
		if line == "" {
			continue
		}
		var cmd command
		if err := json.Unmarshal([]byte(line), &cmd); err != nil {
			return fmt.Errorf("a command that is not JSON: %v", err)
		}
		var answer any
		switch cmd.Cmd {
		case "start":
			answer = started{Version: Protocol, Implementation: describe(impl)}
		case "run":
			answer = runOne(ctx, cmd, run)
		case "stop":
			return nil
		default:
			// A later protocol version may add messages (docs/harness.md): one this kit does not know
			// is not the end of the harness. It has no answer: the suite sends none without knowing it.
			log.Printf("unknown command ignored: %.100q", cmd.Cmd)
			continue
		}
		if err := enc.Encode(answer); err != nil {
			return err
		}
	}
	return scanner.Err()
}

func describe(impl Implementation) map[string]any {
	libraries := map[string]string{"go": runtime.Version()}
	for name, version := range impl.Libraries {
		libraries[name] = version
	}
	apis := append([]string{}, impl.APIs...)
	sort.Strings(apis)
	d := map[string]any{
		"name": impl.Name, "language": "go", "version": impl.Version,
		"libraries": libraries, "apis": apis,
	}
	if len(impl.Unsupported) > 0 {
		d["unsupported"] = impl.Unsupported
	}
	if impl.Homepage != "" {
		d["homepage"] = impl.Homepage
	}
	if len(impl.Continues) > 0 {
		d["continues"] = impl.Continues
	}
	return d
}

func runOne(ctx context.Context, cmd command, run RunFunc) (answer ran) {
	answer.Seq = cmd.Seq
	defer func() {
		if r := recover(); r != nil {
			answer = ran{Seq: cmd.Seq, Errored: &errored{Message: fmt.Sprintf("panic: %v", r), Detail: string(debug.Stack())}}
		}
	}()
	var c Case
	if err := json.Unmarshal(cmd.Case, &c); err != nil {
		return ran{Seq: cmd.Seq, Errored: &errored{Message: "the case does not parse: " + err.Error()}}
	}
	output, err := run(ctx, &c)
	var skip Skip
	var skipPtr *Skip
	switch {
	case err == nil:
		return ran{Seq: cmd.Seq, OK: true, Output: &output}
	case errors.As(err, &skip):
		return ran{Seq: cmd.Seq, Skipped: nonEmpty(skip.Reason)}
	case errors.As(err, &skipPtr):
		return ran{Seq: cmd.Seq, Skipped: nonEmpty(skipPtr.Reason)}
	default:
		return ran{Seq: cmd.Seq, Errored: &errored{Message: err.Error(), Detail: fmt.Sprintf("%+v", err)}}
	}
}

func nonEmpty(reason string) string {
	if reason == "" {
		return "not supported by the library"
	}
	return reason
}

// ModuleVersion is the version of dependency `path` built into this binary ("" when it is not
// one), for Implementation.Version and Libraries. A replaced module reports its replacement's.
func ModuleVersion(path string) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, dep := range info.Deps {
		if dep.Path != path {
			continue
		}
		if dep.Replace != nil && dep.Replace.Version != "" {
			return dep.Replace.Version
		}
		return dep.Version
	}
	return ""
}
