/* SPDX-License-Identifier: MIT */
/* check/check.h - what the files of stdiogate-check share (which file does
 * what: docs/ARCHITECTURE.md, "The checker, file by file"). */
#ifndef STDIOGATE_CHECK_H
#define STDIOGATE_CHECK_H

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

#include "../common/inspect.h"
#include "../protocol/detect.h"
#include "../common/env.h"

/* ------------------------------------------------------------------ */
/* --check */

#ifndef STDIOGATE_VERSION
#define STDIOGATE_VERSION "unknown" /* (the Makefile gives the wrapper's) */
#endif

#define EXIT_USAGE 125

/* ------------------------------------------------------------------ */
/* --inspect, --wrapper, --environment (wrapper.c) */

int inspect(const char *path, int quiet);
int wrapper(const char *pid, const char *verbosity, const char *library, const char *path, int strict,
            int answer_fd);
int environment(const char *pid);

/* ------------------------------------------------------------------ */
/* Small utilities (util.c) */

void die(int status, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
void *xrealloc(void *p, size_t n);
char *xasprintf(const char *fmt, ...);
double now(void);
void set_nonblock_cloexec(int fd);

/* ------------------------------------------------------------------ */
/* Reading and writing JSON (json.c) */

struct span {
    const char *p, *e;
};

const char *json_ws(const char *p, const char *e);
int is_digit(char c);
const char *json_value_end(const char *p, const char *e, int depth);
int json_is_object(const char *p, const char *e, struct span *obj);
void json_squeeze(char *s);
void json_string_copy(struct span s, char *out, size_t cap);
int json_string_is(struct span s, const char *word);
int json_member(struct span obj, const char *key, struct span *value);
int json_kind(struct span v, char first);
void put_json_bytes(const char *s, size_t n);
void put_json_string(const char *s);
void escape_bytes(const unsigned char *p, size_t n, char *out, size_t cap);

/* ------------------------------------------------------------------ */
/* What stdiogate knows about the program: sg_inspect's findings, the
 * wrapper's warnings, and whether COMMAND is a launcher. */

struct program_facts {
    int known;                 /* sg_inspect could read it */
    struct sg_inspection in;
    const char *launcher;      /* what kind, or NULL */
    char note[1024];           /* one line for people */
    const char *auto_strict;   /* the default mode runs it under the filter: why, or NULL */
};

extern const unsigned finding_bits[8];
extern const char *const finding_keys[8];
#define NFINDINGS (sizeof finding_bits / sizeof finding_bits[0])

void inspect_program(const char *command, const char *path, struct program_facts *f);
int windows_line_ends(const struct sg_inspection *in);
void choose_default_mode(struct program_facts *f, int strict_available);
const char *finding_name(unsigned finding);
int resolve_command(const char *name, char *out, size_t cap);
void own_directory(char *out, size_t cap);

/* ------------------------------------------------------------------ */
/* Options */

enum protocol { PROTO_MCP, PROTO_LSP, PROTO_DAP };

/* How the protocol was chosen (protocol.c) */
enum protocol_source { FROM_OPTION, FROM_DEFAULT, FROM_COMMAND, FROM_FRAMED_ANSWER, FROM_SILENT_LINE,
                       FROM_LINE_ANSWER, FROM_SILENT_FRAME };

struct options {
    enum protocol protocol;   /* the one the runs speak */
    int protocol_given;       /* --protocol named it: no other is tried */
    enum protocol_source source;
    char protocol_note[300];  /* how it was chosen, for people */
    double timeout, linger;
    const char *call, *call_args;
    int json;
    const char *wrapper;  /* the stdiogate wrapper (passed by it) */
    char **command;       /* NULL-terminated */
    int ncommand;
};

/* ------------------------------------------------------------------ */
/* One run of the server */

enum phase { PHASE_BEFORE, PHASE_SERVING, PHASE_EXIT };

enum outcome { OUT_NOT_SENT, OUT_WAITING, OUT_RESULT, OUT_ERROR, OUT_NONE, OUT_WRONG_ID, OUT_MALFORMED };

enum state { S_SESSION, S_LATE, S_LINGER, S_CLOSING, S_DRAIN, S_DONE };

#define HEAD_MAX 48          /* first bytes kept of each stretch */
#define STRETCH_MAX 16       /* stretches kept per run; the rest are counted */
#define TEXT_STRETCHES 5     /* of which the text report lists */
#define REQUEST_MAX 8
#define ITEM_MAX 12
#define MESSAGE_MAX (64u << 20)  /* a longer protocol message is not read */
#define ERR_HEAD_MAX 200
#define ERR_TAIL_MAX 400    /* the last bytes of stderr kept: what a server that died said last */
#define LEFT_MAX 4           /* leftover processes named in the report */

struct stretch {
    enum phase phase;
    unsigned long long offset, length;
    unsigned char head[HEAD_MAX];
    size_t head_len;
};

struct request {
    const char *method;
    char id[40];             /* as sent (JSON text) */
    enum outcome outcome;
    char seen_id[40];        /* a wrong id, or why there was no answer */
    int glued;               /* MCP: on one line after junk (no newline between): clients lose it */
    char error[160];         /* error.message of an error answer */
    double sent, answered;   /* seconds since the start */
    int late;                /* answered after --timeout (at answered) */
};

struct item {                /* a message to send, in order */
    char *frame;
    int request;             /* index in req[], or -1: a notification */
};

#define READ_SIZE 65536
#define PIECE_MAX (SG_HOLD_MAX + READ_SIZE)
_Static_assert(SG_HEADER_MAX <= SG_HOLD_MAX, "the classifier holds at most SG_HOLD_MAX bytes");

/* stdout, as the strict filter sees it: detect.h's stream classifier says of
 * every byte whether it is protocol or junk.  The bytes it has not decided
 * yet (at most SG_HOLD_MAX) are kept in piece, with those of the call that
 * decides them; the protocol bytes of the message being passed are kept in
 * msg (up to MESSAGE_MAX), to be read for their ids when it ends. */
struct out_stream {
    unsigned long long offset;     /* bytes read so far */
    struct sg_stream cls;
    unsigned char *piece;          /* [PIECE_MAX] */
    size_t piece_len;
    unsigned long long piece_start;
    enum phase piece_phase;
    char *msg;
    size_t msg_len, msg_cap;
    int in_msg, msg_overflow;
    int msg_glued;                 /* MCP: the message began in the middle of a junk line */
    char *line;                    /* MCP: the junk line so far [SG_HOLD_MAX] */
    size_t line_len;
    int line_overflow;
    int eof;
};

struct run {
    const char *mode;        /* "unwrapped", "gated", "strict" */
    int index, of;           /* run index + 1 of of, for the progress lines */
    const char *title;
    char **argv;
    int skipped;             /* not run; note says why */
    char note[2 * PATH_MAX];
    const struct options *opt;

    pid_t pid;
    int started, exec_errno, exited, status;
    double t0, exit_time;
    int in_fd, out_fd, err_fd;

    char *wq;                /* bytes queued for the server's stdin */
    size_t wq_len, wq_off;
    int stdin_closed, stdin_broken;

    struct out_stream out;
    enum phase phase;
    struct stretch cur;
    int cur_open;
    struct stretch st[STRETCH_MAX];
    int nst;
    unsigned long long more_stretches, more_bytes;
    unsigned long long junk[3], messages, notifications, server_requests, stray, oversized, malformed;

    struct request req[REQUEST_MAX];
    int nreq;
    struct item items[ITEM_MAX];
    int nitems, next_item;
    int waiting;             /* index of the request waiting for its answer, or -1 */
    int late;                /* the request given up on at --timeout, or -1 */
    int next_id;
    double first_answer;     /* seconds since the start, or -1 */
    int planned;             /* MCP: the steps after initialize were planned */

    unsigned long long err_bytes;
    unsigned char err_head[ERR_HEAD_MAX];
    size_t err_head_len;
    unsigned char err_tail[ERR_TAIL_MAX];
    size_t err_tail_len;
    int err_eof;
    char err_line[160];      /* the start of the current stderr line */
    size_t err_line_len;
    unsigned long long dropped;  /* what stdiogate said it dropped */

    enum state state;
    double deadline;
    int term_sent, kill_sent, killed_by_check;
    int answer_timeout;      /* a request got no answer within --timeout */
    int exit_timeout;        /* no exit within --timeout after stdin closed */
    int leftovers;           /* processes of the server's left running (killed) */
    struct { long pid; char name[64]; } left[LEFT_MAX];  /* the first of them */
    int exited_early;        /* exited before its stdin was closed */
    int closed_alive;        /* closed stdout before answering, still running */
    int trying;              /* a try of the unwrapped run while the protocol is not known:
                                  1 the first (it ends early on the other framing's bytes),
                                  2 the other framing's (no wait for a late answer) */
    int other_framing;       /* its stdout began in the other framing: ended early */
};


extern volatile sig_atomic_t interrupted;

/* session.c */
void install_signals(void);
void queue_bytes(struct run *r, const char *p, size_t n);
char *frame_message(const struct run *r, const char *body);
void flush_queue(struct run *r);
void plan_rest(struct run *r, struct span answer);
void send_next(struct run *r);
void drive(struct run *r);

/* protocol.c */
enum protocol protocol_of_command(char **command, const char **word);
enum protocol other_protocol(enum protocol p);
int other_framing_seen(const struct run *r);
int no_answer_at_all(const struct run *r);
extern const char *const protocol_titles[3];
extern const char *const framing_words[3];

/* progress.c: on a terminal (stderr), what the check is doing as it goes */
void progress_start(void);
void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* output.c */
void end_stdout(struct run *r);
void read_stdout(struct run *r);
void read_stderr(struct run *r);

/* ------------------------------------------------------------------ */
/* Judging the runs and reporting (report.c) */

struct verdict {
    int status;
    const struct run *fixed_by;   /* the weakest clean run, or NULL */
    char summary[400];
    char advice[600];
    char notes[2][200];     /* a stronger mode broke what a weaker one ran clean */
    int nnotes;
};

void judge(const struct run *runs, int nruns, int found, const char *not_found,
           const struct program_facts *facts, struct verdict *v);
void text_report(const struct options *o, const char *program, const struct program_facts *facts,
                 const struct run *runs, int nruns, const struct verdict *v);
void json_report(const struct options *o, const char *program, const struct program_facts *facts,
                 const struct run *runs, int nruns, const struct verdict *v, int strict_available);

#endif
