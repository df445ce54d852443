// The Bifrost row of bench/peers.ts: Bifrost's engine (github.com/maximhq/bifrost/core, the Go
// module its HTTP transport calls) behind the smallest OpenAI-compatible HTTP front this bench
// needs. The transport module itself (github.com/maximhq/bifrost/transports) is not served by the
// Go module proxy this bench can reach, so its plugins (request logging, telemetry, governance)
// and config store are not measured; see bench/README.md.
//
// Built by bench/peers.ts in its cache dir (go mod init + go get of a pinned core + go build),
// never inside the repository.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/bytedance/sonic"
	bifrost "github.com/maximhq/bifrost/core"
	"github.com/maximhq/bifrost/core/providers/openai"
	"github.com/maximhq/bifrost/core/schemas"
	"github.com/valyala/fasthttp"
)

// account is one OpenAI-compatible provider whose base URL is the bench's stub.
type account struct{ baseURL string }

func (a *account) GetConfiguredProviders() ([]schemas.ModelProvider, error) {
	return []schemas.ModelProvider{schemas.OpenAI}, nil
}

func (a *account) GetKeysForProvider(_ *context.Context, _ schemas.ModelProvider) ([]schemas.Key, error) {
	return []schemas.Key{{ID: "bench", Value: "sk-bench", Models: []string{}, Weight: 1}}, nil
}

func (a *account) GetConfigForProvider(_ schemas.ModelProvider) (*schemas.ProviderConfig, error) {
	config := &schemas.ProviderConfig{NetworkConfig: schemas.NetworkConfig{BaseURL: a.baseURL, DefaultRequestTimeoutInSeconds: 30}}
	config.CheckAndSetDefaults()
	return config, nil
}

func writeError(ctx *fasthttp.RequestCtx, status int, message string) {
	ctx.SetStatusCode(status)
	ctx.SetContentType("application/json")
	body, _ := sonic.Marshal(map[string]any{"error": map[string]string{"message": message}})
	ctx.SetBody(body)
}

func writeBifrostError(ctx *fasthttp.RequestCtx, bifrostErr *schemas.BifrostError) {
	status := fasthttp.StatusBadGateway
	if bifrostErr.StatusCode != nil {
		status = *bifrostErr.StatusCode
	}
	message := "upstream error"
	if bifrostErr.Error != nil {
		message = bifrostErr.Error.Message
	}
	writeError(ctx, status, message)
}

// stream answers a streamed request as Server-Sent Events, one event per chunk the engine sends,
// flushed as it comes, then [DONE] (as Bifrost's own transport writes them).
func stream(ctx *fasthttp.RequestCtx, client *bifrost.Bifrost, request *openai.OpenAIChatRequest) {
	chunks, bifrostErr := client.ChatCompletionStreamRequest(context.Background(), request.ToBifrostChatRequest())
	if bifrostErr != nil {
		writeBifrostError(ctx, bifrostErr)
		return
	}
	ctx.SetContentType("text/event-stream")
	ctx.Response.Header.Set("Cache-Control", "no-cache")
	ctx.SetBodyStreamWriter(func(w *bufio.Writer) {
		for chunk := range chunks {
			body, err := sonic.Marshal(chunk)
			if err != nil {
				continue
			}
			_, _ = w.WriteString("data: ")
			_, _ = w.Write(body)
			_, _ = w.WriteString("\n\n")
			if w.Flush() != nil {
				// The client went away: drain so the engine's sender is not left blocked.
				for range chunks {
				}
				return
			}
		}
		_, _ = w.WriteString("data: [DONE]\n\n")
		_ = w.Flush()
	})
}

func main() {
	host := flag.String("host", "127.0.0.1", "address to listen on")
	port := flag.Int("port", 8080, "port to listen on")
	upstream := flag.String("upstream", "", "base URL of the OpenAI-compatible upstream, without /v1")
	poolSize := flag.Int("pool-size", 300, "Bifrost's initial pool size (the transport's documented example value)")
	flag.Parse()
	if *upstream == "" {
		fmt.Fprintln(os.Stderr, "-upstream is required")
		os.Exit(2)
	}

	client, err := bifrost.Init(context.Background(), schemas.BifrostConfig{
		Account:         &account{baseURL: *upstream},
		InitialPoolSize: *poolSize,
		Logger:          bifrost.NewDefaultLogger(schemas.LogLevelWarn),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "bifrost init:", err)
		os.Exit(1)
	}

	handler := func(ctx *fasthttp.RequestCtx) {
		path := string(ctx.Path())
		if path == "/health" {
			ctx.SetBodyString("ok")
			return
		}
		if path != "/v1/chat/completions" || !ctx.IsPost() {
			writeError(ctx, fasthttp.StatusNotFound, "not found")
			return
		}
		var request openai.OpenAIChatRequest
		if err := sonic.Unmarshal(ctx.PostBody(), &request); err != nil {
			writeError(ctx, fasthttp.StatusBadRequest, "invalid JSON: "+err.Error())
			return
		}
		// Clients still send max_tokens; the engine carries max_completion_tokens.
		if request.MaxCompletionTokens == nil && request.MaxTokens != nil {
			request.MaxCompletionTokens = request.MaxTokens
		}
		if request.Stream != nil && *request.Stream {
			stream(ctx, client, &request)
			return
		}
		response, bifrostErr := client.ChatCompletionRequest(context.Background(), request.ToBifrostChatRequest())
		if bifrostErr != nil {
			writeBifrostError(ctx, bifrostErr)
			return
		}
		body, err := sonic.Marshal(response)
		if err != nil {
			writeError(ctx, fasthttp.StatusInternalServerError, err.Error())
			return
		}
		ctx.SetContentType("application/json")
		ctx.SetBody(body)
	}

	server := &fasthttp.Server{Handler: handler, Name: "bifrost-bench"}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		_ = server.Shutdown()
	}()
	address := fmt.Sprintf("%s:%d", *host, *port)
	fmt.Fprintln(os.Stderr, "listening on", address)
	if err := server.ListenAndServe(address); err != nil {
		fmt.Fprintln(os.Stderr, "listen:", err)
		os.Exit(1)
	}
	client.Shutdown()
}
