// Calls the running server through the Go client that oapi-codegen generated from the spec, then reads the token
// list through the client generated from the developer API document (see run.sh). Reads CONFORMANCE_BASE_URL,
// CONFORMANCE_API_KEY and CONFORMANCE_DEVELOPERS_URL from the environment; never prints the key. Exits 1 on any
// failure.
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sort"

	"conformance-client/apiclient"
	"conformance-client/devclient"
)

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "go client: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	base, key := os.Getenv("CONFORMANCE_BASE_URL"), os.Getenv("CONFORMANCE_API_KEY")
	if base == "" || key == "" {
		fail("CONFORMANCE_BASE_URL and CONFORMANCE_API_KEY must be set")
	}
	bearer := func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+key)
		return nil
	}
	client, err := apiclient.NewClientWithResponses(base, apiclient.WithRequestEditorFn(bearer))
	if err != nil {
		fail("cannot build the client: %v", err)
	}
	ctx := context.Background()
	limit := apiclient.Limit(25)
	listed, err := client.ListCustomLaunchesV4WithResponse(ctx, "4663", &apiclient.ListCustomLaunchesV4Params{Limit: &limit})
	if err != nil {
		fail("listCustomLaunchesV4: %v", err)
	}
	if listed.StatusCode() != http.StatusOK || listed.JSON200 == nil {
		fail("listCustomLaunchesV4 answered HTTP %d", listed.StatusCode())
	}
	seen := map[string]bool{}
	for _, launch := range listed.JSON200.Launches {
		seen[string(launch.Status)] = true
	}
	statuses := make([]string, 0, len(seen))
	for s := range seen {
		statuses = append(statuses, s)
	}
	sort.Strings(statuses)
	caps, err := client.GetCustomLaunchCapabilitiesV4WithResponse(ctx, "4663")
	if err != nil {
		fail("getCustomLaunchCapabilitiesV4: %v", err)
	}
	if caps.StatusCode() != http.StatusOK || caps.JSON200 == nil {
		fail("getCustomLaunchCapabilitiesV4 answered HTTP %d", caps.StatusCode())
	}
	fmt.Printf("go client: listCustomLaunchesV4 -> 200 (%d launches, statuses %v); getCustomLaunchCapabilitiesV4 -> 200 (chain %s)\n",
		len(listed.JSON200.Launches), statuses, caps.JSON200.ChainId)
	readTokenList(ctx, os.Getenv("CONFORMANCE_DEVELOPERS_URL"))
}

// readTokenList reads the developer API's token list and checks its version counts its tokens.
func readTokenList(ctx context.Context, developersURL string) {
	if developersURL == "" {
		fail("CONFORMANCE_DEVELOPERS_URL must be set")
	}
	dev, err := devclient.NewClientWithResponses(developersURL)
	if err != nil {
		fail("cannot build the developer API client: %v", err)
	}
	listed, err := dev.GetDeveloperTokenListWithResponse(ctx, &devclient.GetDeveloperTokenListParams{})
	if err != nil {
		fail("getDeveloperTokenList: %v", err)
	}
	if listed.StatusCode() != http.StatusOK || listed.JSON200 == nil {
		fail("getDeveloperTokenList answered HTTP %d", listed.StatusCode())
	}
	tokens := listed.JSON200.Tokens
	if len(tokens) == 0 || listed.JSON200.Version.Minor != len(tokens) {
		fail("getDeveloperTokenList: version minor %d for %d tokens", listed.JSON200.Version.Minor, len(tokens))
	}
	chains := map[int]bool{}
	for _, token := range tokens {
		chains[int(token.ChainId)] = true
	}
	fmt.Printf("go client: getDeveloperTokenList -> 200 (%d tokens on %d chains, first %s at %s)\n",
		len(tokens), len(chains), tokens[0].Symbol, tokens[0].Address)
}
