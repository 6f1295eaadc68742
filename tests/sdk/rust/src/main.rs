// SPDX-License-Identifier: MIT
// noisy-rmcp: an rmcp stdio server that behaves like many real ones: a println! banner before the
// transport starts, one tool (`echo`) that println!s a line while it runs. With --pipes it serves
// on rmcp's stdio_pipes() (which reopens /proc/self/fd/0 and /proc/self/fd/1 when both are FIFOs)
// instead of stdio().
use std::sync::Arc;

use rmcp::{
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
        ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    },
    service::RequestContext,
    ErrorData as McpError, RoleServer, ServerHandler, ServiceExt,
};

struct Noisy;

fn echo_tool() -> Tool {
    let schema = serde_json::json!({
        "type": "object",
        "properties": { "message": { "type": "string" } },
        "required": ["message"]
    });
    let serde_json::Value::Object(schema) = schema else { unreachable!() };
    Tool::new("echo", "Echoes the message back", Arc::new(schema))
}

impl ServerHandler for Noisy {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("noisy-rmcp", "0.1.0"))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(vec![echo_tool()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let message = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("message"))
            .and_then(|m| m.as_str())
            .unwrap_or("")
            .to_owned();
        println!("noisy-rmcp: tool echo called");
        Ok(CallToolResult::success(vec![ContentBlock::text(format!("Echo: {message}"))]).into())
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("noisy-rmcp: starting MCP server on stdio");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let pipes = std::env::args().nth(1).as_deref() == Some("--pipes");
    rt.block_on(async {
        let server = if pipes {
            Noisy.serve(rmcp::transport::stdio_pipes()).await?
        } else {
            Noisy.serve(rmcp::transport::stdio()).await?
        };
        server.waiting().await?;
        Ok(())
    })
}
