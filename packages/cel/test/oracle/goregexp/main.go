// Reads a JSON array of patterns on stdin and writes, for each, what Go's regexp.Compile says:
// "" when it compiles, else its error text. Test infrastructure only.
package main

import (
	"encoding/json"
	"os"
	"regexp"
)

func main() {
	var patterns []string
	if err := json.NewDecoder(os.Stdin).Decode(&patterns); err != nil {
		panic(err)
	}
	out := make([]string, len(patterns))
	for i, p := range patterns {
		if _, err := regexp.Compile(p); err != nil {
			out[i] = err.Error()
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		panic(err)
	}
}
