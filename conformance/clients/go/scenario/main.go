// The clients scenario (conformance/clients/README.md) through the Go client that oapi-codegen generated from the
// spec into launchclient/ (build.sh). Reads CLIENTS_BASE_URL, CLIENTS_API_KEY (never printed) and CLIENTS_INPUTS;
// prints one line a step and exits 1 at the first mismatch.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"regexp"
	"strings"
	"time"

	"clients-scenario/launchclient"
)

const chain launchclient.ChainId = "4663"

type inputs struct {
	IdempotencyKey string          `json:"idempotencyKey"`
	Request        json.RawMessage `json:"request"`
	OtherRequest   json.RawMessage `json:"otherRequest"`
	SourceFiles    []struct {
		Sha256 string `json:"sha256"`
		Path   string `json:"path"`
	} `json:"sourceFiles"`
}

func step(name, format string, args ...any) {
	fmt.Printf("%s: %s\n", name, fmt.Sprintf(format, args...))
}

func mismatch(name, format string, args ...any) {
	fmt.Printf("%s: MISMATCH %s\n", name, fmt.Sprintf(format, args...))
	os.Exit(1)
}

func short(body []byte) string {
	if len(body) > 400 {
		return string(body[:400])
	}
	return string(body)
}

// decodeRequest reads a request of the inputs into the generated profile-4.1.0 model and wraps it in the request
// body's union; the model must give back exactly the JSON it read.
func decodeRequest(raw json.RawMessage) (launchclient.CustomLaunchCreateRequestV4Profile410, launchclient.CustomLaunchCreateRequestV4) {
	var model launchclient.CustomLaunchCreateRequestV4Profile410
	if err := json.Unmarshal(raw, &model); err != nil {
		mismatch("preflight", "the request decodes into CustomLaunchCreateRequestV4Profile410: %v", err)
	}
	again, err := json.Marshal(model)
	if err != nil {
		mismatch("preflight", "the request model encodes: %v", err)
	}
	var want, got any
	_ = json.Unmarshal(raw, &want)
	_ = json.Unmarshal(again, &got)
	if !reflect.DeepEqual(want, got) {
		mismatch("preflight", "the generated request model gives back the request it decoded; it does not")
	}
	var body launchclient.CustomLaunchCreateRequestV4
	if err := body.FromCustomLaunchCreateRequestV4Profile410(model); err != nil {
		mismatch("preflight", "the request body union takes the 4.1.0 profile: %v", err)
	}
	return model, body
}

func main() {
	base, key, inputsPath := os.Getenv("CLIENTS_BASE_URL"), os.Getenv("CLIENTS_API_KEY"), os.Getenv("CLIENTS_INPUTS")
	if base == "" || key == "" || inputsPath == "" {
		fmt.Fprintln(os.Stderr, "set CLIENTS_BASE_URL, CLIENTS_API_KEY and CLIENTS_INPUTS")
		os.Exit(2)
	}
	raw, err := os.ReadFile(inputsPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var in inputs
	if err := json.Unmarshal(raw, &in); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx := context.Background()
	bearer := launchclient.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+key)
		return nil
	})
	client, err := launchclient.NewClientWithResponses(base, bearer)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	public, err := launchclient.NewClientWithResponses(base)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	request, body := decodeRequest(in.Request)
	_, otherBody := decodeRequest(in.OtherRequest)

	caps, err := client.GetCustomLaunchCapabilitiesV4WithResponse(ctx, chain)
	if err != nil || caps.JSON200 == nil {
		mismatch("capabilities", "200, got %v %v", status(caps), err)
	}
	profiles := []string{}
	current := false
	for _, p := range caps.JSON200.Profiles {
		profiles = append(profiles, fmt.Sprintf("%s %s", p.Profile, p.State))
		current = current || p.Profile == "4.1.0"
	}
	if caps.JSON200.ChainId != "4663" || !current {
		mismatch("capabilities", "chain 4663 with profile 4.1.0, got %s", short(caps.Body))
	}
	step("capabilities", "200, chain %s, profiles %s", caps.JSON200.ChainId, strings.Join(profiles, ", "))

	pre, err := client.PreflightCustomLaunchV4WithResponse(ctx, chain, body)
	if err != nil || pre.JSON200 == nil {
		mismatch("preflight", "200, got %v %v", status(pre), err)
	}
	if pre.JSON200.LaunchIntentHash != request.LaunchIntentHash {
		mismatch("preflight", "launchIntentHash %s, got %s", request.LaunchIntentHash, pre.JSON200.LaunchIntentHash)
	}
	step("preflight", "200, disposition %s, %d blocking, %d warning findings", pre.JSON200.Disposition,
		len(pre.JSON200.BlockingFindingCodes), len(pre.JSON200.WarningFindingCodes))

	params := &launchclient.CreateCustomLaunchV4Params{IdempotencyKey: in.IdempotencyKey}
	created, err := client.CreateCustomLaunchV4WithResponse(ctx, chain, params, body)
	if err != nil || created.StatusCode() != 202 || created.JSON202 == nil {
		mismatch("create", "202, got %v %v", status(created), err)
	}
	launchID := created.JSON202.LaunchId
	step("create", "202, launchId %s, status %s", launchID, created.JSON202.Status)

	replayed, err := client.CreateCustomLaunchV4WithResponse(ctx, chain, params, body)
	if err != nil || replayed.StatusCode() != 200 || replayed.JSON200 == nil {
		mismatch("replay", "200, got %v %v", status(replayed), err)
	}
	if replayed.JSON200.LaunchId != launchID {
		mismatch("replay", "launchId %s, got %s", launchID, replayed.JSON200.LaunchId)
	}
	step("replay", "200, the same launchId %s", replayed.JSON200.LaunchId)

	conflict, err := client.CreateCustomLaunchV4WithResponse(ctx, chain, params, otherBody)
	if err != nil || conflict.StatusCode() != 409 || conflict.JSON409 == nil {
		mismatch("conflict", "409 as an ApiError, got %v %v", status(conflict), err)
	}
	var apiError launchclient.ApiError = *conflict.JSON409
	if apiError.Error.Code != "IDEMPOTENCY_CONFLICT" || apiError.Error.RequestId == "" || apiError.Error.Retryable {
		mismatch("conflict", "IDEMPOTENCY_CONFLICT, not retryable, got %s", short(conflict.Body))
	}
	step("conflict", "409 %s, requestId %s, retryable false", apiError.Error.Code, apiError.Error.RequestId)

	delivered := []string{}
	for _, file := range in.SourceFiles {
		content, err := os.ReadFile(file.Path)
		if err != nil {
			mismatch("sources", "%s readable: %v", file.Path, err)
		}
		put, err := client.PutCustomLaunchSourceFileV4WithBodyWithResponse(ctx, chain, launchID, file.Sha256,
			"application/octet-stream", bytes.NewReader(content))
		if err != nil || (put.JSON201 == nil && put.JSON200 == nil) {
			mismatch("sources", "201 for %s, got %v %v", file.Sha256, status(put), err)
		}
		delivered = append(delivered, fmt.Sprint(put.StatusCode()))
	}
	step("sources", "%d files delivered (%s)", len(delivered), strings.Join(delivered, " "))

	started := time.Now()
	var launch *launchclient.CustomLaunchResourceV4
	for {
		read, err := client.GetCustomLaunchV4WithResponse(ctx, chain, launchID)
		if err != nil || read.JSON200 == nil {
			mismatch("authorized", "200, got %v %v", status(read), err)
		}
		launch = read.JSON200
		s := string(launch.Status)
		if s == "authorized" || s == "awaiting_wallet_signature" {
			break
		}
		if s == "action_required" || s == "failed" || s == "cancelled" || s == "expired" {
			mismatch("authorized", "authorized, got %s: %s", s, short(read.Body))
		}
		if time.Since(started) > 90*time.Second {
			mismatch("authorized", "authorized within 90 s, still %s", s)
		}
		time.Sleep(250 * time.Millisecond)
	}
	tx := launch.WalletTransaction
	if tx == nil || tx.ChainId != "4663" || !strings.EqualFold(tx.From, request.LaunchWallet) ||
		!regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`).MatchString(tx.To) ||
		!regexp.MustCompile(`^[0-9]+$`).MatchString(tx.ValueWei) ||
		!regexp.MustCompile(`^0x([0-9a-fA-F]{2})+$`).MatchString(tx.Data) {
		mismatch("authorized", "a walletTransaction from %s on chain 4663, got %+v", request.LaunchWallet, tx)
	}
	step("authorized", "%s after %.1f s; walletTransaction to %s, valueWei %s, gasLimit %s, data %d bytes",
		launch.Status, time.Since(started).Seconds(), tx.To, tx.ValueWei, tx.GasLimit, (len(tx.Data)-2)/2)

	seen := map[string]bool{}
	pages, onPage := 0, 0
	limit := 1
	listParams := &launchclient.ListCustomLaunchesV4Params{Limit: &limit}
	for {
		page, err := client.ListCustomLaunchesV4WithResponse(ctx, chain, listParams)
		if err != nil || page.JSON200 == nil {
			mismatch("list", "200, got %v %v", status(page), err)
		}
		pages++
		if len(page.JSON200.Launches) > 1 {
			mismatch("list", "at most 1 launch a page, got %d", len(page.JSON200.Launches))
		}
		for _, listed := range page.JSON200.Launches {
			if seen[listed.LaunchId] {
				mismatch("list", "each launch once, got %s twice", listed.LaunchId)
			}
			seen[listed.LaunchId] = true
			if listed.LaunchId == launchID {
				onPage = pages
			}
		}
		if page.JSON200.NextCursor == nil {
			break
		}
		listParams = &launchclient.ListCustomLaunchesV4Params{Limit: &limit, Cursor: page.JSON200.NextCursor}
	}
	if pages < 2 || onPage == 0 {
		mismatch("list", "at least 2 pages with launch %s, got %d pages", launchID, pages)
	}
	step("list", "%d pages of limit=1, launch %s on page %d", pages, launchID, onPage)

	feed, err := public.ListFinalizedCustomLaunchesV4WithResponse(ctx, chain, nil)
	if err != nil || feed.JSON200 == nil {
		mismatch("finalized feed", "200, got %v %v", status(feed), err)
	}
	items := feed.JSON200.Launches
	for _, item := range items {
		if item.ChainId != "4663" || item.TransactionHash == "" {
			mismatch("finalized feed", "finalized launches of chain 4663, got %s", short(feed.Body))
		}
	}
	if len(items) == 0 {
		mismatch("finalized feed", "at least one finalized launch, got %s", short(feed.Body))
	}
	step("finalized feed", "200, %d launches, first %s (block %s, source verification %s)", len(items),
		items[0].LaunchId, items[0].BlockNumber, items[0].SourceVerification.Status)
}

// status is a response's HTTP status and the start of its body, for a mismatch line.
func status(r interface {
	StatusCode() int
}) string {
	if r == nil || reflect.ValueOf(r).IsNil() {
		return "no response"
	}
	body := reflect.ValueOf(r).Elem().FieldByName("Body").Bytes()
	return fmt.Sprintf("%d %s", r.StatusCode(), short(body))
}
