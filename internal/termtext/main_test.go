package termtext

import (
	"os"
	"testing"

	"github.com/tfrs/a2a-progress/internal/testdep"
)

// TestMain reports TestDefaultIgnorableTable's skip, when the Unicode data
// is missing, in the package's summary line (testdep.Reporting), as
// cmd/a2a-tail did when the test was there. No goleak: nothing here starts
// a goroutine (as in internal/jsonstr and internal/textcut).
func TestMain(m *testing.M) { os.Exit(testdep.Reporting(m).Run()) }
