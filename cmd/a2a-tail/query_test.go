package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestQueryCommand(t *testing.T) {
	// The /v1/query stream of the recorded runtime analysis, verbatim
	// (client/captures_test.go checks the file against it).
	seedQuery, err := os.ReadFile(filepath.Join("..", "..", "testdata", "captures", "seed004", "query.sse"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		body string
		args []string
		want cliResult
	}{
		{
			name: "the seed's frames: remote progress, then the interrupt",
			body: string(seedQuery),
			args: []string{"--conversation-id", "conv-1"},
			want: cliResult{Code: exitInterrupted, Stderr: "conversation conv-1\n", Stdout: `  1 tool_call expense-review [ri:333a9f5f-...:call_00_JIhiVhnvjabn7DCjgY2D1744] running
  2 expense-review: awaiting input
tool expense-review ri:333a9f5f-...:call_00_JIhiVhnvjabn7DCjgY2D1744: unfinished
? input required: 费用报销审核需要您的审批。请审核后输入 'approved' 通过，或说明拒绝理由。
  - expense-review (call_00_JIhiVhnvjabn7DCjgY2D1744): 费用报销审核需要您的审批。请审核后输入 'approved' 通过，或说明拒绝理由。
  respond on task conv-1
`},
		},
		{
			name: "business chunks are the reply",
			body: "data: {\"content\":\"Approved: \"}\n\ndata: {\"content\":\"8200 in total.\"}\n\n",
			args: []string{"--conversation-id", "conv-2"},
			want: cliResult{Code: exitOK, Stderr: "conversation conv-2\n", Stdout: `✓ completed: Approved: 8200 in total.
  artifact reply: Approved: …
`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost || r.URL.Path != "/v1/query" {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			args := append([]string{"query"}, tt.args...)
			args = append(args, srv.URL, "帮我审核这笔报销")
			got := runCLI(t.Context(), testApp(""), args...)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
