package childproc

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
)

func TestCaughtIn(t *testing.T) {
	for _, tc := range []struct {
		name    string
		status  string
		sig     syscall.Signal
		catches bool
		known   bool
	}{
		{"a Go program's", "Name:\tx\nSigCgt:\tfffffffd7fc1fefd\n", syscall.SIGUSR2, true, true},
		{"before its runtime", "Name:\tx\nSigCgt:\t0000000000000000\n", syscall.SIGUSR2, false, true},
		{"another bit only", "SigCgt:\t0000000000000400\n", syscall.SIGUSR2, false, true}, // SIGUSR1's
		{"its bit only", "SigCgt:\t0000000000000800\n", syscall.SIGUSR2, true, true},
		{"no such line", "Name:\tx\n", syscall.SIGUSR2, false, false},
		{"not hex", "SigCgt:\tzz\n", syscall.SIGUSR2, false, false},
		{"empty", "", syscall.SIGINT, false, false},
	} {
		catches, known := caughtIn([]byte(tc.status), tc.sig)
		if catches != tc.catches || known != tc.known {
			t.Errorf("%s: caughtIn = %v, %v; want %v, %v", tc.name, catches, known, tc.catches, tc.known)
		}
	}
}

// TestCatches reads real processes: this test's (a Go program catches
// SIGUSR2 from its runtime's start) and a sleep's (which does not).
func TestCatches(t *testing.T) {
	if catches, known := Catches(os.Getpid(), syscall.SIGUSR2); !catches || !known {
		t.Errorf("this process: Catches = %v, %v; want true, true", catches, known)
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	cmd := exec.Command(sleep, "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if catches, known := Catches(cmd.Process.Pid, syscall.SIGUSR2); catches || !known {
		t.Errorf("sleep: Catches = %v, %v; want false, true", catches, known)
	}
	if _, known := Catches(-1, syscall.SIGUSR2); known {
		t.Error("no such process: known")
	}
}
