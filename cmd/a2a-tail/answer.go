package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// answerFlags are send's --task and --context: the ids a message carries
// to continue a task (like the a2a CLI's flags of the same names).
type answerFlags struct {
	task    string
	context string
}

func (f *answerFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.task, "task", "", "answer this task (one that waits for input): the message continues it and the new turn is followed")
	cmd.Flags().StringVar(&f.context, "context", "", "context id the message carries (with --task: the task's, default looked up with GetTask)")
}

func (f *answerFlags) validate(async bool) error {
	if f.task != "" && async {
		return usageError{errors.New("--task and --async: an answer is followed as it is sent; drop --async")}
	}
	return nil
}
