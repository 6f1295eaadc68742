// SPDX-License-Identifier: MIT
// noisy-go-sdk: a stdio MCP server on the official Go SDK that behaves like many real ones: a
// fmt.Println banner before the transport starts, one tool (`echo`) that prints a line on stdout
// while it runs.
package main

import (
	"context"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoArgs struct {
	Message string `json:"message"`
}

func echo(ctx context.Context, req *mcp.CallToolRequest, args echoArgs) (*mcp.CallToolResult, any, error) {
	fmt.Println("noisy-go-sdk: tool echo called")
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Echo: " + args.Message}}}, nil, nil
}

func main() {
	fmt.Println("noisy-go-sdk: starting MCP server on stdio")
	server := mcp.NewServer(&mcp.Implementation{Name: "noisy-go-sdk", Version: "0.1.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Echoes the message back"}, echo)
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
