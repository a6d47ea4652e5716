package profiles

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

// endless is a reader that never ends a line.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// A message is read whole up to MaxMessage; one that runs on is an error
// naming the limit, read no further.
func TestReadMessageBound(t *testing.T) {
	r := bufio.NewReaderSize(io.MultiReader(strings.NewReader(`{"warning":"a"}`+"\n"), endless{}), 64<<10)
	line, err := readMessage(r)
	if err != nil || string(line) != `{"warning":"a"}`+"\n" {
		t.Fatalf("first message %q, %v", line, err)
	}
	_, err = readMessage(r)
	var tl *MessageTooLongError
	if !errors.As(err, &tl) || err.Error() != "it sent a message that does not end within 64 MiB, the most one message may hold" {
		t.Fatalf("err = %v", err)
	}
	long := strings.Repeat("y", 1<<20)
	r = bufio.NewReaderSize(strings.NewReader(long+"\nrest"), 64<<10)
	if line, err := readMessage(r); err != nil || len(line) != len(long)+1 {
		t.Fatalf("a 1 MiB message: %d bytes, %v", len(line), err)
	}
}

func TestPlainText(t *testing.T) {
	for in, want := range map[string]string{
		"plain text":                            "plain text",
		"\x1b[31mred\x1b[0m and \x1b[1;33mbold": "red and bold",
		"title\x1b]0;owned\x07 here":            "title here",
		"title\x1b]2;owned\x1b\\ here":          "title here",
		"clear\x1b[2J\x1b[H screen\x1bc":        "clear screen",
		"tab\there, bell\a, nul\x00, del\x7f":   "tab here, bell, nul, del",
		"c1 \u009b31mcsi, \u0085next":           "c1 csi, next",
		"bad \xff utf-8, good é ✓":              "bad  utf-8, good é ✓",
		"cut short \x1b[":                       "cut short ",
		"carriage\rreturn\nline":                "carriagereturnline",
	} {
		if got := plainText(in); got != want {
			t.Errorf("plainText(%q) = %q, want %q", in, got, want)
		}
	}
}
