package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// respondFlags are send's --task and --context: the ids a message carries
// to continue a task (like the a2a CLI's flags of the same names).
type respondFlags struct {
	task    string
	context string
}

func (f *respondFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.task, "task", "", "respond to this task (one that waits for input): the message continues it and the new turn is followed")
	cmd.Flags().StringVar(&f.context, "context", "", "context id the message carries (with --task: the task's, default looked up with GetTask)")
}

func (f *respondFlags) validate(async bool) error {
	if f.task != "" && async {
		return usageError{errors.New("--task and --async: a response is followed as it is sent; drop --async")}
	}
	return nil
}
