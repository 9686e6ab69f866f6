#!/usr/bin/env bash
# Walks the MCP Tasks v1 wire protocol (2025-11-25) against the server over Streamable HTTP,
# with nothing but curl and jq, printing every request and response and checking each outcome.
#
# Usage: scripts/exercises.sh [URL]
#   URL  the server's /mcp endpoint. Without it the script starts
#        `node dist/server.js --http --port 0 --default-ttl 3s` from the repo root and stops it on exit.
# Env:   MCP_TASKS_TOKEN  sent as "Authorization: Bearer ..." (a server started here reads it too).
#
# Each exercise runs in its own subshell so that a failed expectation ends that exercise only;
# exercises hand values to later ones (session id, task ids) through small files in a state dir.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
PROTOCOL_VERSION=2025-11-25
RELATED_TASK=io.modelcontextprotocol/related-task
# The server started here keeps tasks only 3 s by default, so exercise 9 is quick. Tasks that must
# survive several steps (and a loaded CI machine) ask for a longer retention explicitly.
LONG_TTL='{"ttl":60000}'

URL=${1:-}
OWN_SERVER=false # true when this script started the server (then its default TTL is known: 3 s)
SERVER_PID=
WORK=$(mktemp -d)
mkdir -p "$WORK/state"
PASSED=0
FAILED=0

AUTH=()
if [[ -n ${MCP_TASKS_TOKEN:-} ]]; then
    AUTH=(-H "Authorization: Bearer $MCP_TASKS_TOKEN")
fi

# ---------------------------------------------------------------------------------------------
# Server lifecycle

cleanup() {
    end_sessions
    if [[ -n $SERVER_PID ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill -TERM "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT
# Bash skips the EXIT trap when a signal kills it; exiting from a handler runs it, stopping the server.
trap 'exit 130' INT
trap 'exit 143' TERM

# Starts the built server on a free port and reads the one JSON line it prints once listening.
start_server() {
    if [[ ! -f $REPO_ROOT/dist/server.js ]]; then
        echo "exercises: $REPO_ROOT/dist/server.js is missing; run 'npm run build' first" >&2
        exit 2
    fi
    (cd "$REPO_ROOT" && exec node dist/server.js --http --port 0 --default-ttl 3s) >"$WORK/server.out" 2>"$WORK/server.log" &
    SERVER_PID=$!
    OWN_SERVER=true
    local tries
    for ((tries = 0; tries < 150; tries++)); do
        # Wait for a complete line (wc counts newlines): the server may still be writing it.
        if (($(wc -l <"$WORK/server.out") >= 1)); then
            URL=$(head -n 1 "$WORK/server.out" | jq -r .url)
            echo "started server (pid $SERVER_PID) at $URL"
            return
        fi
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    echo "exercises: the server did not print its URL; its log:" >&2
    cat "$WORK/server.log" >&2
    exit 2
}

# Ends the sessions this script opened, so a long-lived server does not keep them for 30 minutes.
end_sessions() {
    [[ -n $URL ]] || return 0
    local file
    for file in "$WORK"/state/session*; do
        [[ -f $file ]] || continue
        curl -sS -o /dev/null --max-time 5 -X DELETE "${AUTH[@]}" -H "Mcp-Session-Id: $(<"$file")" "$URL" 2>/dev/null || true
    done
}

# ---------------------------------------------------------------------------------------------
# State shared between exercises (each runs in a subshell, so plain variables would not survive)

remember() { printf '%s' "$2" >"$WORK/state/$1"; }

recall() {
    [[ -s $WORK/state/$1 ]] || fail "no $1 (the exercise that creates it did not complete)"
    cat "$WORK/state/$1"
}

# ---------------------------------------------------------------------------------------------
# Output and checks (everything goes to stdout, so failures appear in order with the exchange)

heading() { printf '\n== %s ==\n' "$*"; }
note() { printf '  %s\n' "$*"; }

# Pretty JSON while it is short; long JSON stays on one compact line.
show_json() {
    local prefix=$1 json=$2
    if ((${#json} > 300)); then
        printf '  %s %s\n' "$prefix" "$json"
    else
        jq . <<<"$json" | sed "1s/^/  $prefix /; 2,\$s/^/    /"
    fi
}

fail() {
    printf '  ✗ FAIL: %s\n' "$*"
    exit 1
}

# expect DESCRIPTION JQ_FILTER: the filter must yield true for the last response.
expect() {
    if jq -e "$2" >/dev/null 2>&1 <<<"$RESPONSE"; then
        note "✓ $1"
    else
        fail "$1 (expected $2; got $RESPONSE)"
    fi
}

expect_error() { expect "$2" ".error.code == $1"; }

field() { jq -r "$1" <<<"$RESPONSE"; }

# ---------------------------------------------------------------------------------------------
# JSON-RPC over Streamable HTTP

NEXT_ID=1
RESPONSE=      # the JSON-RPC response to the last rpc call (compact JSON)
NOTIFICATIONS= # messages that preceded it on an SSE response, one compact JSON per line
HTTP_STATUS=
SESSION_HEADER=
IS_SSE=false

# post SESSION BODY: sends one JSON-RPC message; leaves the body in a file, the headers in variables.
post() {
    local session=$1 body=$2 headers
    local args=(-sS --max-time 60 -X POST -D "$WORK/headers" -o "$WORK/body" -w '%{http_code}'
        -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' "${AUTH[@]}")
    if [[ -n $session ]]; then
        # Streamable HTTP: every message after initialize names its session and protocol version.
        args+=(-H "Mcp-Session-Id: $session" -H "MCP-Protocol-Version: $PROTOCOL_VERSION")
    fi
    HTTP_STATUS=$(curl "${args[@]}" --data-binary "$body" "$URL") || fail "curl could not reach $URL"
    headers=$(tr -d '\r' <"$WORK/headers")
    headers=${headers,,} # header names are case-insensitive; ids and content types are lower case
    SESSION_HEADER=
    [[ $headers =~ (^|$'\n')mcp-session-id:\ *([^$'\n']*) ]] && SESSION_HEADER=${BASH_REMATCH[2]}
    IS_SSE=false
    [[ $headers =~ (^|$'\n')content-type:\ *text/event-stream ]] && IS_SSE=true
    return 0
}

# The JSON messages of an SSE body: the payload of each `data:` line (one line per event here).
sse_data() { tr -d '\r' <"$1" | sed -n 's/^data: \{0,1\}//p'; }

# rpc SESSION METHOD [PARAMS] [quiet]: sends a request, prints it and its response, sets RESPONSE.
rpc() {
    local session=$1 method=$2 params=${3:-} quiet=${4:-} id=$NEXT_ID request all
    NEXT_ID=$((NEXT_ID + 1))
    request="{\"jsonrpc\":\"2.0\",\"id\":$id,\"method\":\"$method\"${params:+,\"params\":$params}}"
    [[ -n $quiet ]] || note "→ $request"
    post "$session" "$request"
    if [[ $HTTP_STATUS != 200 ]]; then
        fail "$method: HTTP $HTTP_STATUS $(<"$WORK/body")$([[ $HTTP_STATUS == 401 ]] && echo ' (set MCP_TASKS_TOKEN?)')"
    fi
    # The response is either one JSON object or an SSE stream of messages ending with it; either
    # way, put our response on the first line and anything else (progress, ...) after it.
    all=$(if $IS_SSE; then sse_data "$WORK/body"; else cat "$WORK/body"; fi |
        jq -cs --argjson id "$id" '(map(select(.id == $id)) | first // empty), (.[] | select(.id != $id))') ||
        fail "$method: unreadable response: $(<"$WORK/body")"
    RESPONSE=${all%%$'\n'*}
    NOTIFICATIONS=
    [[ $all == *$'\n'* ]] && NOTIFICATIONS=${all#*$'\n'}
    [[ $RESPONSE == *"\"id\":$id"* ]] || fail "$method: no response with id $id in: $(<"$WORK/body")"
    [[ -z $quiet ]] || return 0
    if $IS_SSE; then
        note "← (SSE stream; messages before the response:)"
    fi
    local message
    while IFS= read -r message; do
        [[ -n $message ]] && note "← $message"
    done <<<"$NOTIFICATIONS"
    show_json '←' "$RESPONSE"
}

# notify SESSION METHOD: sends a notification; the server must accept it with 202 and no body.
notify() {
    local request="{\"jsonrpc\":\"2.0\",\"method\":\"$2\"}"
    note "→ $request"
    post "$1" "$request"
    note "← HTTP $HTTP_STATUS"
    [[ $HTTP_STATUS == 202 ]] || fail "$2: expected HTTP 202, got $HTTP_STATUS $(<"$WORK/body")"
}

# open_session NAME: initialize + notifications/initialized; remembers the session id under NAME.
open_session() {
    rpc '' initialize "{\"protocolVersion\":\"$PROTOCOL_VERSION\",\"capabilities\":{},\"clientInfo\":{\"name\":\"exercises.sh\",\"version\":\"1.0.0\"}}"
    [[ -n $SESSION_HEADER ]] || fail "initialize returned no Mcp-Session-Id header"
    note "session id: $SESSION_HEADER"
    remember "$1" "$SESSION_HEADER"
    expect "protocol version $PROTOCOL_VERSION" ".result.protocolVersion == \"$PROTOCOL_VERSION\""
    expect 'capabilities.tasks: list, cancel, requests.tools.call' \
        '.result.capabilities.tasks | .list != null and .cancel != null and .requests.tools.call != null'
    notify "$SESSION_HEADER" notifications/initialized
}

# Request params. Task ids are the server's base64url strings, so plain interpolation is safe.
task_ref() { printf '{"taskId":"%s"}' "$1"; }

# tool_call NAME ARGUMENTS [TASK]: tools/call params, task-augmented when TASK is given.
tool_call() { printf '{"name":"%s","arguments":%s%s}' "$1" "$2" "${3:+,\"task\":$3}"; }

sleep_ms() { sleep "$(($1 / 1000)).$(printf '%03d' $(($1 % 1000)))"; }

# poll_until_terminal SESSION TASK_ID: tasks/get every pollInterval; RESPONSE ends as the terminal Task.
poll_until_terminal() {
    local session=$1 task=$2 polls=0 line status interval message
    note "→ {\"jsonrpc\":\"2.0\",\"id\":…,\"method\":\"tasks/get\",\"params\":$(task_ref "$task")}  (repeated)"
    while :; do
        polls=$((polls + 1))
        rpc "$session" tasks/get "$(task_ref "$task")" quiet
        line=$(field '[.result.status // "error: \(.error.message)", .result.pollInterval // 1000, .result.statusMessage // ""] | join("\t")')
        IFS=$'\t' read -r status interval message <<<"$line"
        note "poll $polls: $status${message:+ — $message}"
        case $status in
        completed | failed | cancelled) break ;;
        working | input_required) ;;
        *) fail "tasks/get failed: $RESPONSE" ;;
        esac
        ((polls < 60)) || fail "task $task still $status after $polls polls"
        # The server suggests how often to poll; respect it rather than hammering tasks/get.
        sleep_ms "$interval"
    done
    show_json '←' "$RESPONSE"
}

# ---------------------------------------------------------------------------------------------
# The exercises

ex_initialize() {
    open_session session
}

ex_greet() {
    local session
    session=$(recall session)
    rpc "$session" tools/call "$(tool_call greet '{"name":"World"}')"
    expect 'a plain CallToolResult, not a task' '.result.task == null and .result.content != null'
    expect 'text is "Hello, World!"' '.result.content[0].text == "Hello, World!"'
}

ex_optional_task() {
    local session
    session=$(recall session)
    note 'slow_compute is optional: without "task" it runs inline, streaming progress over SSE …'
    rpc "$session" tools/call '{"name":"slow_compute","arguments":{"seconds":1,"label":"inline"},"_meta":{"progressToken":"ex3-inline"}}'
    expect 'inline CallToolResult, no task' '.result.task == null and .result.structuredContent.result == 42'
    note '… and with "task" it answers at once with a CreateTaskResult:'
    rpc "$session" tools/call "$(tool_call slow_compute '{"seconds":2,"label":"ex3"}' "$LONG_TTL")"
    expect 'CreateTaskResult: result.task is working' '.result.task.status == "working"'
    expect 'the Task has taskId, createdAt, lastUpdatedAt, ttl, pollInterval' \
        '.result.task | (.taskId | type) == "string" and .createdAt != null and .lastUpdatedAt != null and has("ttl") and (.pollInterval | type) == "number"'
    remember task3 "$(field .result.task.taskId)"
}

ex_polling() {
    local session task
    session=$(recall session)
    task=$(recall task3)
    poll_until_terminal "$session" "$task"
    expect 'reached completed' '.result.status == "completed"'
    expect 'tasks/get is the flat Task, with no related-task _meta' ".result.taskId == \"$task\" and .result._meta == null"
}

ex_result() {
    local session task
    session=$(recall session)
    task=$(recall task3)
    rpc "$session" tasks/result "$(task_ref "$task")"
    expect 'the original CallToolResult' '.result.content[0].text | test("completed after 2 seconds")'
    expect "_meta[\"$RELATED_TASK\"] names the task" ".result._meta[\"$RELATED_TASK\"].taskId == \"$task\""
}

ex_failing_job() {
    local session task
    session=$(recall session)
    note 'failing_job requires a task; a plain call is refused:'
    rpc "$session" tools/call "$(tool_call failing_job '{}')"
    expect_error -32601 'error -32601 (task required)'
    note 'as a task it runs, then fails:'
    rpc "$session" tools/call "$(tool_call failing_job '{}' "$LONG_TTL")"
    expect 'CreateTaskResult' '.result.task.status == "working"'
    task=$(field .result.task.taskId)
    poll_until_terminal "$session" "$task"
    expect 'reached failed' '.result.status == "failed"'
    expect 'statusMessage says why' '.result.statusMessage | type == "string" and length > 0'
    rpc "$session" tasks/result "$(task_ref "$task")"
    expect 'tasks/result is the CallToolResult, with isError: true' '.result.isError == true'
    expect 'and the related-task _meta' ".result._meta[\"$RELATED_TASK\"].taskId == \"$task\""
}

ex_cancel() {
    local session task
    session=$(recall session)
    rpc "$session" tools/call "$(tool_call slow_compute '{"seconds":30,"label":"ex7"}' "$LONG_TTL")"
    expect 'CreateTaskResult' '.result.task.status == "working"'
    task=$(field .result.task.taskId)
    remember task7 "$task"
    rpc "$session" tasks/cancel "$(task_ref "$task")"
    expect 'tasks/cancel answers the Task, cancelled' ".result.taskId == \"$task\" and .result.status == \"cancelled\""
    rpc "$session" tasks/get "$(task_ref "$task")"
    expect 'tasks/get: still cancelled (terminal)' '.result.status == "cancelled"'
    note 'cancelling a terminal task is an error:'
    rpc "$session" tasks/cancel "$(task_ref "$task")"
    expect_error -32602 'second tasks/cancel → -32602'
}

ex_list() {
    local session task
    session=$(recall session)
    task=$(recall task7)
    rpc "$session" tasks/list '{}'
    expect 'result.tasks is a list of Tasks' '.result.tasks | type == "array" and all(.[]; (.taskId | type) == "string" and (.status | type) == "string")'
    expect 'it includes the task cancelled in exercise 7' ".result.tasks | any(.[]; .taskId == \"$task\" and .status == \"cancelled\")"
    note "$(field '.result.tasks | "\(length) task(s): " + (map(.status) | join(", "))')"
}

ex_ttl() {
    local session task ttl task_param expected_ttl
    session=$(recall session)
    if $OWN_SERVER; then
        task_param='{}' # no ttl asked: the server started here applies its --default-ttl 3s
        expected_ttl=3000
    else
        task_param='{"ttl":1000}' # the server's minimum (shorter requests are raised to 1 s)
        expected_ttl=1000
    fi
    rpc "$session" tools/call "$(tool_call slow_compute '{"seconds":0,"label":"ex9"}' "$task_param")"
    expect "the Task's ttl is $expected_ttl ms" ".result.task.ttl == $expected_ttl"
    task=$(field .result.task.taskId)
    ttl=$(field .result.task.ttl)
    rpc "$session" tasks/get "$(task_ref "$task")"
    expect 'it exists before the TTL' ".result.taskId == \"$task\""
    note "waiting ttl + 0.5 s …"
    sleep_ms $((ttl + 500))
    rpc "$session" tasks/get "$(task_ref "$task")"
    expect_error -32602 'gone after the TTL: tasks/get → -32602'
}

ex_cross_session() {
    local first second task
    first=$(recall session)
    note 'session 1 starts a task:'
    rpc "$first" tools/call "$(tool_call slow_compute '{"seconds":30,"label":"ex10"}' "$LONG_TTL")"
    expect 'CreateTaskResult' '.result.task.status == "working"'
    task=$(field .result.task.taskId)
    note 'session 2 is another client:'
    open_session session2
    second=$(recall session2)
    rpc "$second" tasks/get "$(task_ref "$task")"
    expect_error -32602 "session 2 cannot tasks/get session 1's task (-32602, as if unknown)"
    rpc "$second" tasks/cancel "$(task_ref "$task")"
    expect_error -32602 'nor tasks/cancel it (-32602)'
    rpc "$second" tasks/list '{}'
    expect "session 2's tasks/list is empty" '.result.tasks == []'
    note "session 1 still owns the task, untouched; it cancels it to clean up:"
    rpc "$first" tasks/cancel "$(task_ref "$task")"
    expect 'session 1 cancels it (it was still working)' '.result.status == "cancelled"'
}

# run_exercise N TITLE FUNCTION: a subshell keeps one failure from aborting the rest;
# `set -e` is re-enabled inside because errexit would be suspended in an `if`/`||` context.
run_exercise() {
    local number=$1 title=$2 fn=$3 status
    heading "$number. $title"
    set +e
    (
        set -e
        NEXT_ID=$((number * 100)) # ids tell which exercise a request belongs to
        "$fn"
    )
    status=$?
    set -e
    if ((status == 0)); then
        PASSED=$((PASSED + 1))
    else
        FAILED=$((FAILED + 1))
        note "exercise $number failed"
    fi
}

main() {
    local tool
    for tool in curl jq; do
        command -v "$tool" >/dev/null || { echo "exercises: $tool is required" >&2; exit 2; }
    done
    if [[ -z $URL ]]; then
        start_server
    else
        echo "using server at $URL"
    fi

    run_exercise 1 'initialize + notifications/initialized' ex_initialize
    run_exercise 2 'synchronous tool call: greet' ex_greet
    run_exercise 3 'optional task: slow_compute as a task' ex_optional_task
    run_exercise 4 'polling tasks/get until terminal' ex_polling
    run_exercise 5 'tasks/result' ex_result
    run_exercise 6 'failing job' ex_failing_job
    run_exercise 7 'cancel' ex_cancel
    run_exercise 8 'tasks/list' ex_list
    run_exercise 9 'TTL expiry' ex_ttl
    run_exercise 10 'cross-session denial' ex_cross_session

    printf '\nexercises: %d passed, %d failed (%d s)\n' "$PASSED" "$FAILED" "$SECONDS"
    ((FAILED == 0))
}

main
