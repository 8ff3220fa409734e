package run

import "os/exec"

// Run runs the command the request names.
func Run(command string, ㅤ string) error {
	return exec.Command("sh", "-c", command+ㅤ).Run()
}
