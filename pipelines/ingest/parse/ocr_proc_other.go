//go:build !unix

package parse

import "os/exec"

// killGroupOnCancel leaves exec's default (kill the process itself) where
// there are no Unix process groups; cmd.WaitDelay still bounds the wait.
func killGroupOnCancel(cmd *exec.Cmd) {}
