// compose-config loads a compose file the way Docker Compose does, with the
// parser Compose itself is built on (github.com/compose-spec/compose-go/v2):
// the compose-spec schema, interpolation from the environment, profiles,
// defaults and the cross-references Compose checks before it starts anything.
// It prints the resulting model as JSON, or the loader's error and status 1.
//
//	compose-config [--profile NAME]... FILE
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	var profiles []string
	args := os.Args[1:]
	for len(args) > 1 && args[0] == "--profile" {
		profiles = append(profiles, args[1])
		args = args[2:]
	}
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: compose-config [--profile NAME]... FILE")
		os.Exit(2)
	}
	options, err := cli.NewProjectOptions(args, cli.WithOsEnv, cli.WithProfiles(profiles))
	if err != nil {
		fail(err)
	}
	project, err := options.LoadProject(context.Background())
	if err != nil {
		fail(err)
	}
	out, err := project.MarshalJSON()
	if err != nil {
		fail(err)
	}
	os.Stdout.Write(out)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
