#!/bin/sh
# The `interlock` command as a user runs it: its output and exit status on good and bad route
# files, URIs and logs. Usage: check_cli.sh PATH-TO-interlock
set -u
tool=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failed=0 passed=0
expect() {   # expect NAME STATUS WANT-IN-OUTPUT COMMAND...
  name=$1 want_status=$2 want=$3
  shift 3
  out=$("$@" 2>&1); status=$?
  if [ "$status" -ne "$want_status" ] || ! printf '%s' "$out" | grep -qF -- "$want"; then
    echo "cli: $name: exit $status (want $want_status), output:"; printf '%s\n' "$out" | sed 's/^/  /'
    echo "  wanted: $want"
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
}

cat > "$dir/good.routes" <<'ROUTES'
# deep links and the API
GET /users/:id          name=user   owner=accounts
POST /users             name=create
myapp://settings        name=settings
/files/:name.json
https://*.example.com:8443/u/:id   name=tenant
ROUTES
cat > "$dir/bad.routes" <<'ROUTES'
GET /users/:id   name=user
/bad//segment
GET /users/:other
GET /users/:id(.+)
ROUTES
printf '10.0.0.1 - - [25/Nov/2026:10:00:00 +0000] "GET /users/7 HTTP/1.1" 200 12 "-" "curl"\n/files/a.json\n/files/b.json\n/nowhere\n/nowhere\n/a%%zz\n' > "$dir/access.log"
printf '/users/1\n\377\376\n' > "$dir/binary.log"

expect "check good" 0 "5 routes, no problems" "$tool" check "$dir/good.routes"
expect "check bad: a malformed line" 1 "bad.routes:2:6: empty segment" "$tool" check "$dir/bad.routes"
expect "check bad: a conflict names both lines" 1 "bad.routes:3:5: 'GET /users/:other' conflicts with 'GET /users/:id' (line 1)" "$tool" check "$dir/bad.routes"
expect "check bad: a route that never wins" 1 "bad.routes:1:1: 'GET /users/:id' never wins '/users/x': line 4" "$tool" check "$dir/bad.routes"
expect "check bad: the summary" 1 "2 routes, 3 problems" "$tool" check "$dir/bad.routes"
tr -d '\r' < "$dir/bad.routes" | sed 's/$/\r/' > "$dir/crlf.routes"
expect "check: a CRLF file, every line" 1 "crlf.routes:3:5: 'GET /users/:other' conflicts" "$tool" check "$dir/crlf.routes"
expect "check: a CRLF file, the summary" 1 "2 routes, 3 problems" "$tool" check "$dir/crlf.routes"
printf 'get /x\nGET\nPOST name=create\n/one\n' > "$dir/traps.routes"
expect "check: a method in lower case" 1 "traps.routes:1:1: method 'get' must be upper case ('GET')" "$tool" check "$dir/traps.routes"
expect "check: a method alone is no route /GET" 1 "traps.routes:2:4: method 'GET' with no pattern after it" "$tool" check "$dir/traps.routes"
expect "check: a method before pairs is no route /POST" 1 "traps.routes:3:5: method 'POST' with no pattern after it" "$tool" check "$dir/traps.routes"
expect "check: one route" 1 "1 route, 3 problems" "$tool" check "$dir/traps.routes"
# Each conflict names the other line by a lookup: trying every earlier route on each message took
# time in the square of the file's length (this file took many minutes), now about a second.
awk 'BEGIN { for (i = 1; i <= 20000; i++) print "/r" i "/:a"; for (i = 1; i <= 20000; i++) print "/r" i "/:b" }' > "$dir/conflicts.routes"
expect "check: 20,000 conflicting lines" 1 "20000 routes, 20000 problems" "$tool" check "$dir/conflicts.routes"
expect "check: 20,000 conflicting lines, each named" 1 "conflicts.routes:40000:1: '/r20000/:b' conflicts with '/r20000/:a' (line 20000)" "$tool" check "$dir/conflicts.routes"
expect "check: a missing file" 2 "cannot read $dir/none.routes" "$tool" check "$dir/none.routes"
expect "explain: the winner" 0 "/users/7 -> line 2: GET /users/:id  [id=7]" "$tool" explain "$dir/good.routes" /users/7 -X GET
expect "explain: a route whose path ends first" 0 "line 3: POST /users  -- the path goes on at segment 2" "$tool" explain "$dir/good.routes" /users/7 -X GET
expect "explain: routes read from a pipe, once, still named by line" 0 "/users/7 -> line 2: GET /users/:id" sh -c 'cat "$1" | "$2" explain /dev/stdin /users/7 -X GET' sh "$dir/good.routes" "$tool"
printf 'GET /users/:id\nGET /users/:id(.+)\n' > "$dir/explain.routes"
expect "explain: why the winner won, routes named by line" 0 "why: at segment 2, a parameter constrained by (.+) before a parameter (line 1)" "$tool" explain "$dir/explain.routes" /users/7 -X GET
printf 'GET /o(/:a)(/:b)\nGET /o/:x(\\d+)\n' > "$dir/forms.routes"
expect "explain: each form of a route with optional parts, routes by line" 0 "line 1: GET /o(/:a)(/:b) (as /o/:b)  -- taken first by line 2" "$tool" explain "$dir/forms.routes" /o/7 -X GET
expect "explain --json" 0 '"answer":{"status":"method not allowed","allowed":["GET"]}' "$tool" explain --json "$dir/good.routes" /users/7 -X PUT
expect "explain: a malformed URI" 1 "bad percent-escape" "$tool" explain "$dir/good.routes" /a%zz
expect "match: a route" 0 '{"uri":"/users/7","route":1,"name":"user","pattern":"GET /users/:id","params":{"id":"7"}}' "$tool" match "$dir/good.routes" -X GET /users/7
expect "match: a method not allowed" 0 '"status":"method not allowed","allowed":["GET"]' "$tool" match "$dir/good.routes" -X PUT /users/7
expect "match: a malformed URI, exit 1" 1 '{"uri":"/a%zz","error":"bad percent-escape in path","offset":2}' "$tool" match "$dir/good.routes" /a%zz
expect "match: a malformed URI, every answer" 1 '{"uri":"/nowhere","status":"not found"}' "$tool" match "$dir/good.routes" /a%zz /nowhere
expect "match: a malformed URI on standard input" 1 '"error":"bad percent-escape in path"' sh -c "printf '/users/1\n/a%%zz\n' | '$tool' match '$dir/good.routes'"
expect "match: not found is an answer" 0 '{"uri":"/nowhere","status":"not found"}' "$tool" match "$dir/good.routes" /nowhere
expect "match: a malformed method" 1 'interlock: -X "G T": invalid character in method (at byte 1)' "$tool" match "$dir/good.routes" -X "G T" /users/7
expect "match: standard input" 0 '"name":"settings"' sh -c "printf 'myapp://settings\n' | '$tool' match '$dir/good.routes'"
expect "match: a bad route file" 1 "bad.routes:2:6: empty segment" "$tool" match "$dir/bad.routes" /x
expect "url" 0 "https://api.example.com:8443/u/9" "$tool" url "$dir/good.routes" tenant host=api.example.com id=9
expect "url: a missing parameter" 1 "missing parameter 'id'" "$tool" url "$dir/good.routes" user
expect "url: an unknown name" 1 "no route is named 'nope'" "$tool" url "$dir/good.routes" nope
expect "count: routes by frequency" 0 "         2  /files/:name.json" "$tool" count "$dir/good.routes" "$dir/access.log"
expect "count: the access log's request field" 0 "         1  GET /users/:id  (user)" "$tool" count "$dir/good.routes" "$dir/access.log"
expect "count: unmatched by frequency" 0 "         2  /nowhere" "$tool" count "$dir/good.routes" "$dir/access.log"
expect "count: malformed with its line" 0 "bad percent-escape in path (first on line 6)" "$tool" count "$dir/good.routes" "$dir/access.log"
expect "count: binary lines" 0 "line is not UTF-8 (first on line 2)" "$tool" count "$dir/good.routes" "$dir/binary.log"
expect "count --json" 0 '"unmatched":[{"request":"/nowhere","count":2}]' "$tool" count --json "$dir/good.routes" "$dir/access.log"
expect "count: a missing log" 2 "cannot read $dir/none.log" "$tool" count "$dir/good.routes" "$dir/none.log"
expect "help" 0 "check" "$tool" --help

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
