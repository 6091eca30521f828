package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client/agenttest"
)

// Runs that outlive the browser: the AG-UI client's connection is cut
// (by nested.mjs's fetch, as a network error) inside the remote call, the
// remote agent goes on meanwhile, and the client reconnects with the
// cursor of the last event it got — cut again in the reconnect's prelude
// and after it. Every event of the run reaches it exactly once, @ag-ui/client's
// verifier accepts every connection, and its messages are those of a run
// that was never cut.

type cutsOut struct {
	Connections []struct {
		Raw []struct {
			ID   *string `json:"id"`
			Data string  `json:"data"`
		} `json:"raw"`
		Types []string `json:"types"`
		Error *string  `json:"error"`
	} `json:"connections"`
	Messages []map[string]any `json:"messages"`
}

// canonical is the messages' JSON with every id replaced by its order of
// first appearance (two runs make different random ids), and text by want.
func canonical(t *testing.T, msgs []map[string]any, text, want string) string {
	t.Helper()
	b, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(b), text, want)
	ids := map[string]string{}
	re := regexp.MustCompile(`(msg-|call-|a2a-sub-|txt-|a2a-)[0-9a-f]{8,}`)
	return re.ReplaceAllStringFunc(s, func(id string) string {
		if ids[id] == "" {
			ids[id] = fmt.Sprint("id", len(ids))
		}
		return ids[id]
	})
}

// runLog is the whole log of an ended AG-UI run, as a reader without a
// cursor gets it.
func runLog(t *testing.T, url, thread, run string) []string {
	t.Helper()
	resp, err := http.Get(url + "/ag-ui/threads/" + thread + "/runs/" + run + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the run's log: status %d: %s", resp.StatusCode, body)
	}
	var data []string
	for _, block := range strings.Split(string(body), "\n\n") {
		for _, line := range strings.Split(block, "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				data = append(data, d)
			}
		}
	}
	return data
}

func TestAGUIReconnectAfterCuts(t *testing.T) {
	steps := slices.Clone(agenttest.Realistic().Steps)
	steps[5].Gate = "cut" // the remote agent waits there until the browser was cut
	sc := agenttest.Realistic()
	sc.Name, sc.Steps = "slow order", steps
	f := start(t, sc)
	ref := runAGUI(t, f, "where is order 42?")

	var out cutsOut
	runNode(t, map[string]any{"mode": "agui-cuts", "url": f.url + "/ag-ui", "runUrl": f.url + "/ag-ui/threads/{thread}/runs/{run}",
		"id": "thread-cut", "text": "slow order", "cuts": []int{10, 5, 9}, "release": releaseURL(t, f.agent, "cut")}, &out)
	if len(out.Connections) != 4 {
		t.Fatalf("connections = %d, want 4 (three cuts)", len(out.Connections))
	}
	var got []string
	for i, c := range out.Connections {
		wantErr := i < 3
		if (c.Error != nil) != wantErr || (wantErr && *c.Error != "network cut") {
			t.Errorf("connection %d: error %v, want a cut: %v", i, c.Error, wantErr)
		}
		prelude := i > 0
		for j, ev := range c.Raw {
			if ev.ID == nil {
				if !prelude {
					t.Errorf("connection %d: event %d without id after the prelude: %s", i, j, ev.Data)
				}
				continue
			}
			prelude = false
			got = append(got, ev.Data)
		}
	}
	want := runLog(t, f.url, "thread-cut", "run-1")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the events the client got across the cuts, preludes left out (-the run's log +got):\n%s", diff)
	}
	if diff := cmp.Diff(canonical(t, ref.Messages, "", ""), canonical(t, out.Messages, "slow order", "where is order 42?")); diff != "" {
		t.Errorf("the client's messages after the cuts (-a run never cut +after cuts):\n%s", diff)
	}
}
