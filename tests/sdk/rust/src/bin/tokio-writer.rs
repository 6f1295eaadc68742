// SPDX-License-Identifier: MIT
// tokio-writer: a newline-delimited JSON-RPC server on tokio's multi-thread runtime that writes
// the way hand-written tokio servers do, for tests/guard_threads.bats. Each request gets the junk
// line "tokio-junk ID" and then its answer {"jsonrpc":"2.0","id":ID,"result":{"text":"xxx..."}}
// (SIZE x's), written as MODE says:
//   stdout SIZE   tokio::io::stdout(): write_all(json), write_all(b"\n"), flush() (each a
//                 blocking-pool job: the pieces of one message land on different threads)
//   asyncfd SIZE  fd 1 made non-blocking and registered with AsyncFd (edge-triggered epoll) at
//                 start, before the first request; every write waits for writability on it
// Requests are answered in order, by the task that reads them (the writes themselves still hop
// between threads).
use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::io::unix::AsyncFd;

enum Out {
    Stdout(tokio::io::Stdout),
    Fd(AsyncFd<std::fs::File>),
}

impl Out {
    async fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match self {
            Out::Stdout(s) => s.write_all(bytes).await,
            Out::Fd(fd) => {
                let mut done = 0;
                while done < bytes.len() {
                    let mut ready = fd.writable().await?;
                    match ready.try_io(|f| f.get_ref().write(&bytes[done..])) {
                        Ok(Ok(n)) => done += n,
                        Ok(Err(e)) => return Err(e),
                        Err(_would_block) => continue,
                    }
                }
                Ok(())
            }
        }
    }

    async fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Out::Stdout(s) => s.flush().await,
            Out::Fd(_) => Ok(()),
        }
    }
}

fn id_of(line: &str) -> Option<String> {
    let at = line.find("\"id\":")? + 5;
    let rest = &line[at..];
    let end = rest.find([',', '}'])?;
    Some(rest[..end].to_owned())
}

#[allow(deprecated)] // AsyncFd::new: this is the shape real servers of tokio 1.x have
async fn serve(mode: String, size: usize) -> std::io::Result<()> {
    let out = if mode == "asyncfd" {
        // SAFETY: fd 1 stays open for the life of the process; the File is never dropped early.
        let file = unsafe { std::fs::File::from_raw_fd(1) };
        let fl = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETFL) };
        unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETFL, fl | libc::O_NONBLOCK) };
        Out::Fd(AsyncFd::new(file)?)
    } else {
        Out::Stdout(tokio::io::stdout())
    };
    let mut out = out;
    // Eight blocking-pool threads, all idle: as in a server that does its file work with
    // spawn_blocking. Each write of tokio's stdout is a blocking-pool job, taken by whichever idle
    // thread wakes first: the pieces of one message are written by different threads.
    let all_up = std::sync::Arc::new(std::sync::Barrier::new(8));
    let jobs: Vec<_> = (0..8)
        .map(|_| {
            let all_up = all_up.clone();
            tokio::task::spawn_blocking(move || {
                all_up.wait();
            })
        })
        .collect();
    for job in jobs {
        job.await.map_err(std::io::Error::other)?;
    }
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    while let Some(line) = lines.next_line().await? {
        let Some(id) = id_of(&line) else { continue };
        let answer = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"text\":\"{}\"}}}}",
            "x".repeat(size)
        );
        out.put(format!("tokio-junk {id}\n").as_bytes()).await?;
        out.put(answer.as_bytes()).await?;
        out.put(b"\n").await?;
        out.flush().await?;
    }
    Ok(())
}

fn main() -> std::io::Result<()> {
    let mode = std::env::args().nth(1).unwrap_or_default();
    let size: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(3000);
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(4).enable_all().build()?;
    rt.block_on(serve(mode, size))
}
