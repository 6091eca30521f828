package frontend

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/tfrs/a2a-progress/internal/testdep"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(testdep.Reporting(frontends.Stopping(m))) }
