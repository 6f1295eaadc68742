// SPDX-License-Identifier: MIT
// noisy-java-sdk: a stdio MCP server on the official Java SDK that behaves like many real ones: a
// System.out.println banner before the transport starts, one tool (`echo`) that prints a line on
// stdout while it runs.
package noisy;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import io.modelcontextprotocol.spec.McpSchema.Tool;

public final class NoisyServer {
    private static final String SCHEMA = "{\"type\":\"object\",\"properties\":"
            + "{\"message\":{\"type\":\"string\"}},\"required\":[\"message\"]}";

    public static void main(String[] args) {
        System.out.println("noisy-java-sdk: starting MCP server on stdio");
        McpJsonMapper json = McpJsonDefaults.getMapper();
        Tool echo = Tool.builder("echo", json, SCHEMA).description("Echoes the message back").build();
        SyncToolSpecification spec = SyncToolSpecification.builder().tool(echo)
                .callHandler((exchange, request) -> {
                    System.out.println("noisy-java-sdk: tool echo called");
                    Object message = request.arguments().get("message");
                    return CallToolResult.builder().addTextContent("Echo: " + message).build();
                })
                .build();
        McpSyncServer server = McpServer.sync(new StdioServerTransportProvider(json))
                .serverInfo("noisy-java-sdk", "0.1.0")
                .capabilities(ServerCapabilities.builder().tools(false).build())
                .tools(spec)
                .build();
        // No join: the transport's reader thread keeps the JVM alive until end of input.
    }
}
