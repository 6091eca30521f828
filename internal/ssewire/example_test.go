package ssewire_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/tfrs/a2a-progress/internal/ssewire"
)

// A body with CRLF line ends, a keep-alive comment and one event over two
// data: lines; the bound is per event.
func ExampleReader_Next() {
	body := ": keep-alive\r\n\r\nid: 1\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\n"
	rd := ssewire.NewReader(strings.NewReader(body), 1<<10)
	for {
		data, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%q\n", data)
	}
	// Output:
	// "{\"a\":\n1}"
}
