package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"reasonixctl/core/contract"
	"reasonixctl/core/policy"
)

// runContract implements `contract lint [--json] FILE|-`: exit 0 with the hash, 1 with every
// issue (schema, consistency and the policy gate on verification commands), 2 on usage errors.
func runContract(args []string, stdout, stderr io.Writer) int {
	usage := func(msg string) int {
		if msg != "" {
			fmt.Fprintln(stderr, "reasonixctl contract: "+msg)
		}
		fmt.Fprintln(stderr, "usage: reasonixctl contract lint [--json] FILE|-")
		return 2
	}
	if len(args) == 0 || args[0] != "lint" {
		return usage("the only subcommand is lint")
	}
	asJSON, file := false, ""
	for _, a := range args[1:] {
		switch {
		case a == "--json":
			asJSON = true
		case a == "-h" || a == "--help":
			return usage("")
		case a != "-" && len(a) > 1 && a[0] == '-':
			return usage("unknown option " + a)
		case file != "":
			return usage("only one FILE may be given")
		default:
			file = a
		}
	}
	if file == "" {
		return usage("FILE (or - for stdin) is required")
	}
	var data []byte
	var err error
	if file == "-" {
		data, err = io.ReadAll(io.LimitReader(os.Stdin, 16<<20))
	} else {
		data, err = os.ReadFile(file)
	}
	if err != nil {
		return usage(err.Error())
	}

	issues := []contract.Issue{}
	var hash *string
	c, err := contract.Parse(data)
	if invalid, ok := err.(*contract.InvalidError); ok {
		issues = invalid.Issues
	} else if gate := policy.GateContract(c); len(gate) > 0 {
		issues = gate
	} else {
		h := c.Hash()
		hash = &h
	}

	if asJSON {
		out, _ := json.Marshal(struct {
			Valid        bool             `json:"valid"`
			ContractHash *string          `json:"contract_hash"`
			Issues       []contract.Issue `json:"issues"`
		}{hash != nil, hash, issues})
		fmt.Fprintln(stdout, string(out))
	} else if hash != nil {
		fmt.Fprintln(stdout, "sha256 "+*hash)
	} else {
		for _, is := range issues {
			fmt.Fprintf(stdout, "- %s: %s\n", is.Path, is.Message)
		}
	}
	if hash == nil {
		return 1
	}
	return 0
}
