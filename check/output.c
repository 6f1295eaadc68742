/* SPDX-License-Identifier: MIT */
/* check/output.c - what a run of the server wrote: its stdout, classified
 * byte by byte as the strict filter does (detect.h) and its messages read
 * for their answers; its stderr, kept in part and scanned for what the
 * library says it dropped. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

/* --- what came out on stdout */

static void close_stretch(struct run *r)
{
    if (!r->cur_open)
        return;
    r->cur_open = 0;
    if (r->nst < STRETCH_MAX) {
        r->st[r->nst++] = r->cur;
    } else {
        r->more_stretches++;
        r->more_bytes += r->cur.length;
    }
}

/* Bytes [offset, offset + length) were not protocol. */
static void add_junk(struct run *r, enum phase phase, unsigned long long offset, unsigned long long length,
                     const unsigned char *head, size_t head_len)
{
    struct stretch *c = &r->cur;
    if (length == 0)
        return;
    r->junk[phase] += length;
    if (!(r->cur_open && c->phase == phase && c->offset + c->length == offset)) {
        close_stretch(r);
        memset(c, 0, sizeof *c);
        c->phase = phase;
        c->offset = offset;
        r->cur_open = 1;
    }
    c->length += length;
    if (head_len > length)
        head_len = (size_t)length;
    if (head_len > HEAD_MAX - c->head_len)
        head_len = HEAD_MAX - c->head_len;
    memcpy(c->head + c->head_len, head, head_len);
    c->head_len += head_len;
}

static void copy_token(struct span v, char *out, size_t cap)
{
    size_t n = (size_t)(v.e - v.p);
    if (n >= cap) {
        n = cap - 4;
        snprintf(out, cap, "%.*s...", (int)n, v.p);
    } else {
        snprintf(out, cap, "%.*s", (int)n, v.p);
    }
}

static void answered(struct run *r, enum outcome outcome)
{
    struct request *q = &r->req[r->waiting];
    q->outcome = outcome;
    q->answered = now() - r->t0;
    if (r->first_answer < 0)
        r->first_answer = q->answered;
}

/* A server's request to the client: answered, so that it does not wait. */
static void answer_server_request(struct run *r, struct span id, struct span command)
{
    char *body;
    if (r->opt->protocol == PROTO_DAP)
        body = xasprintf("{\"seq\":%d,\"type\":\"response\",\"request_seq\":%.*s,\"command\":%.*s,"
                         "\"success\":false,\"message\":\"not supported by stdiogate --check\"}",
                         r->next_id++, (int)(id.e - id.p), id.p, (int)(command.e - command.p), command.p);
    else if (r->opt->protocol == PROTO_LSP)
        body = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"result\":null}", (int)(id.e - id.p), id.p);
    else
        body = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"error\":{\"code\":-32601,"
                         "\"message\":\"stdiogate --check answers no requests\"}}", (int)(id.e - id.p), id.p);
    char *frame = frame_message(r, body);
    queue_bytes(r, frame, strlen(frame));
    flush_queue(r);
    free(frame);
    free(body);
}

/* The answer to the waiting request arrived, with this id. */
static void take_answer(struct run *r, struct span obj, struct span id, int is_error, struct span message)
{
    struct request *q;
    char text[40];
    copy_token(id, text, sizeof text);
    if (r->waiting < 0 && r->late >= 0 && !r->req[r->late].late && strcmp(text, r->req[r->late].id) == 0) {
        q = &r->req[r->late];   /* made, but answered after --timeout */
        q->late = 1;
        q->answered = now() - r->t0;
        return;
    }
    if (r->waiting < 0) {
        r->stray++;  /* an answer to nothing asked */
        return;
    }
    q = &r->req[r->waiting];
    if (strcmp(text, q->id) != 0) {
        snprintf(q->seen_id, sizeof q->seen_id, "%s", text);
        answered(r, OUT_WRONG_ID);
    } else {
        if (is_error && json_kind(message, '"'))
            json_string_copy(message, q->error, sizeof q->error);
        q->glued = r->out.msg_glued;
        answered(r, is_error ? OUT_ERROR : OUT_RESULT);
    }
    plan_rest(r, obj);
    send_next(r);
}

/* A JSON-RPC message (MCP, LSP)?  Handles it if so. */
static int take_jsonrpc(struct run *r, struct span obj)
{
    struct span v, id, method, result, error, message = { NULL, NULL };
    if (!json_member(obj, "jsonrpc", &v) || !json_string_is(v, "2.0"))
        return 0;
    int has_id = json_member(obj, "id", &id);
    if (json_member(obj, "method", &method) && json_kind(method, '"')) {
        if (has_id) {
            r->server_requests++;
            answer_server_request(r, id, method);
        } else {
            r->notifications++;
        }
        return 1;
    }
    int is_result = json_member(obj, "result", &result);
    int is_error = json_member(obj, "error", &error);
    if (!has_id || is_result == is_error)
        return 0;
    if (is_error && json_kind(error, '{'))
        json_member(error, "message", &message);
    take_answer(r, obj, id, is_error, message);
    return 1;
}

/* A DAP message ("type", integer "seq")?  Handles it if so. */
static int take_dap(struct run *r, struct span obj)
{
    struct span type, seq, id, command, success, message = { NULL, NULL };
    if (!json_member(obj, "type", &type) || !json_member(obj, "seq", &seq) ||
        !(is_digit(*seq.p) || *seq.p == '-'))
        return 0;
    if (json_string_is(type, "event")) {
        r->notifications++;
        return 1;
    }
    if (json_string_is(type, "request")) {
        if (!json_member(obj, "command", &command))
            return 0;
        r->server_requests++;
        answer_server_request(r, seq, command);
        return 1;
    }
    if (!json_string_is(type, "response") || !json_member(obj, "request_seq", &id) ||
        !json_member(obj, "success", &success))
        return 0;
    json_member(obj, "message", &message);
    take_answer(r, obj, id, json_kind(success, 'f'), message);
    return 1;
}

/* Not protocol, but an answer to the waiting request all the same (its id,
 * and a result or an error; on the wire, where the classifier passed it as
 * a message, its id and no method)?  Then that request's answer is
 * malformed: a client rejects it, and waiting for another one would only
 * end in the timeout. */
static void check_malformed_answer(struct run *r, struct span obj, int on_wire)
{
    struct span id, v;
    char text[40];
    const char *key = r->opt->protocol == PROTO_DAP ? "request_seq" : "id";
    if (r->waiting < 0 || !json_member(obj, key, &id))
        return;
    if (r->opt->protocol != PROTO_DAP && !json_member(obj, "result", &v) && !json_member(obj, "error", &v) &&
        !(on_wire && !json_member(obj, "method", &v)))
        return;
    copy_token(id, text, sizeof text);
    if (strcmp(text, r->req[r->waiting].id) == 0) {
        answered(r, OUT_MALFORMED);
        plan_rest(r, obj);
        send_next(r);
    }
}

/* One object of a message on the wire: a JSON-RPC 2.0 (or DAP) message is
 * handled; anything else on the wire is a malformed message. */
static void take_object(struct run *r, const char *p, const char *e)
{
    struct span obj;
    int ok = json_is_object(p, e, &obj);
    if (ok)
        ok = r->opt->protocol == PROTO_DAP ? take_dap(r, obj) : take_jsonrpc(r, obj);
    if (ok)
        return;
    r->malformed++;
    if (json_is_object(p, e, &obj))
        check_malformed_answer(r, obj, 1);
}

/* A whole message passed the classifier: a line (an object, or a batch of
 * them) or a Content-Length frame. */
static void take_wire_message(struct run *r, const char *p, const char *e)
{
    r->messages++;
    if (r->phase == PHASE_BEFORE)
        r->phase = PHASE_SERVING;
    close_stretch(r);
    if (r->out.msg_overflow) {
        /* not read: taken for the answer it most likely is */
        r->oversized++;
        if (r->waiting >= 0) {
            static const char unread[] = "{}";     /* (its capabilities unknown) */
            answered(r, OUT_RESULT);
            plan_rest(r, (struct span){ unread, unread + 2 });
            send_next(r);
        }
        return;
    }
    if (r->opt->protocol != PROTO_MCP) {
        const char *body = memmem(p, (size_t)(e - p), "\r\n\r\n", 4);
        take_object(r, body ? body + 4 : e, e);
        return;
    }
    p = json_ws(p, e);
    if (p < e && *p == '[') {
        const char *end = json_value_end(p, e, 0);
        if (!end) {
            r->malformed++;
            return;
        }
        for (p = json_ws(p + 1, end); p < end && *p == '{';) {
            const char *q = json_value_end(p, end, 1);
            take_object(r, p, q);
            p = json_ws(q, end);
            if (p < end && *p == ',')
                p = json_ws(p + 1, end);
        }
        return;
    }
    take_object(r, p, e);
}

/* MCP junk, line by line: a line that is an answer to the waiting request
 * but not JSON-RPC (no "jsonrpc") is junk, and that request's answer. */
static void junk_line_bytes(struct run *r, const char *p, size_t n)
{
    struct out_stream *s = &r->out;
    while (n > 0) {
        const char *nl = memchr(p, '\n', n);
        size_t take = nl ? (size_t)(nl - p) : n;
        if (s->line_len + take > SG_HOLD_MAX)
            s->line_overflow = 1;
        else if (!s->line_overflow)
            memcpy(s->line + s->line_len, p, take);
        s->line_len += take;
        if (!nl)
            return;
        if (!s->line_overflow) {
            struct span obj;
            if (json_is_object(s->line, s->line + s->line_len, &obj))
                check_malformed_answer(r, obj, 0);
        }
        s->line_len = 0;
        s->line_overflow = 0;
        p = nl + 1;
        n -= take + 1;
    }
}

/* The classifier decided the bytes in piece: junk, or more of a message. */
static void piece_decided(struct run *r, enum sg_verdict verdict)
{
    struct out_stream *s = &r->out;
    if (verdict == SG_JUNK) {
        add_junk(r, s->piece_phase, s->piece_start, s->piece_len, s->piece,
                 s->piece_len < HEAD_MAX ? s->piece_len : HEAD_MAX);
        if (r->opt->protocol == PROTO_MCP)
            junk_line_bytes(r, (const char *)s->piece, s->piece_len);
    } else {
        if (!s->in_msg)  /* (a junk line still open: no newline since) */
            s->msg_glued = r->opt->protocol == PROTO_MCP && s->line_len > 0;
        s->line_len = 0;
        s->line_overflow = 0;
        if (!s->in_msg) {
            s->in_msg = 1;
            s->msg_len = 0;
            s->msg_overflow = 0;
        }
        if (s->msg_len + s->piece_len > MESSAGE_MAX) {
            s->msg_overflow = 1;
        } else if (!s->msg_overflow) {
            if (s->msg_len + s->piece_len > s->msg_cap) {
                s->msg_cap = s->msg_len + s->piece_len > 2 * s->msg_cap ? s->msg_len + s->piece_len : 2 * s->msg_cap;
                s->msg = xrealloc(s->msg, s->msg_cap);
            }
            memcpy(s->msg + s->msg_len, s->piece, s->piece_len);
            s->msg_len += s->piece_len;
        }
        if (s->cls.where == SW_OUTSIDE) {
            s->in_msg = 0;
            take_wire_message(r, s->msg, s->msg + s->msg_len);
        }
    }
    s->piece_len = 0;
}

static void feed_stdout(struct run *r, const char *p, size_t n)
{
    struct out_stream *s = &r->out;
    while (n > 0) {
        enum sg_verdict verdict;
        size_t k = sg_stream_scan(&s->cls, (const unsigned char *)p, n, &verdict);
        if (s->piece_len == 0) {
            s->piece_start = s->offset;
            s->piece_phase = r->phase;
        }
        memcpy(s->piece + s->piece_len, p, k);  /* held bytes are at most SG_HOLD_MAX */
        s->piece_len += k;
        s->offset += k;
        p += k;
        n -= k;
        if (verdict != SG_UNDECIDED)
            piece_decided(r, verdict);
    }
}

/* stdout ended: what the classifier still holds is junk, and a message cut
 * short is malformed. */
void end_stdout(struct run *r)
{
    struct out_stream *s = &r->out;
    if (s->eof)
        return;
    s->eof = 1;
    if (sg_stream_end(&s->cls) == SG_JUNK || s->piece_len)
        piece_decided(r, SG_JUNK);
    if (s->in_msg) {
        s->in_msg = 0;
        r->malformed++;
    }
    close_stretch(r);
}

void read_stdout(struct run *r)
{
    static char buf[READ_SIZE];
    ssize_t n = read(r->out_fd, buf, sizeof buf);
    if (n > 0)
        feed_stdout(r, buf, (size_t)n);
    else if (n == 0 || (errno != EAGAIN && errno != EINTR))
        end_stdout(r);
}

/* A line of the server's stderr ended: the library's level-1 report of
 * startup output it could not deliver is counted (nothing lost, or said). */
static void stderr_line(struct run *r)
{
    static const char said[] = " bytes of startup output were dropped";
    char *p = r->err_line, *colon;
    r->err_line[r->err_line_len] = '\0';
    if (strncmp(p, "stdiogate[", 10) == 0 && (colon = strstr(p, "]: ")) && strstr(colon, said))
        r->dropped += strtoull(colon + 3, NULL, 10);
    r->err_line_len = 0;
}

static void scan_stderr(struct run *r, const char *p, size_t n)
{
    while (n > 0) {
        const char *nl = memchr(p, '\n', n);
        size_t take = nl ? (size_t)(nl - p) : n;
        size_t room = sizeof r->err_line - 1 - r->err_line_len;
        memcpy(r->err_line + r->err_line_len, p, take < room ? take : room);
        r->err_line_len += take < room ? take : room;
        if (!nl)
            return;
        stderr_line(r);
        p = nl + 1;
        n -= take + 1;
    }
}

/* The last ERR_TAIL_MAX bytes of stderr: the cause of a failed start is
 * often said last (the doctor shows them). */
static void keep_tail(struct run *r, const char *p, size_t n)
{
    size_t drop;
    if (n >= ERR_TAIL_MAX) {
        memcpy(r->err_tail, p + n - ERR_TAIL_MAX, ERR_TAIL_MAX);
        r->err_tail_len = ERR_TAIL_MAX;
        return;
    }
    drop = r->err_tail_len + n > ERR_TAIL_MAX ? r->err_tail_len + n - ERR_TAIL_MAX : 0;
    memmove(r->err_tail, r->err_tail + drop, r->err_tail_len - drop);
    r->err_tail_len -= drop;
    memcpy(r->err_tail + r->err_tail_len, p, n);
    r->err_tail_len += n;
}

void read_stderr(struct run *r)
{
    static char buf[65536];
    ssize_t n = read(r->err_fd, buf, sizeof buf);
    if (n > 0) {
        scan_stderr(r, buf, (size_t)n);
        keep_tail(r, buf, (size_t)n);
        size_t keep = ERR_HEAD_MAX - r->err_head_len;
        if (keep > (size_t)n)
            keep = (size_t)n;
        memcpy(r->err_head + r->err_head_len, buf, keep);
        r->err_head_len += keep;
        r->err_bytes += (unsigned long long)n;
    } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        r->err_eof = 1;
    }
}

