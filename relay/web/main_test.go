package web

import (
	"os"
	"testing"

	"github.com/tfrs/a2a-progress/internal/testdep"
)

// TestMain prints which node and browser tests skipped, and why.
func TestMain(m *testing.M) { os.Exit(testdep.Reporting(m).Run()) }
