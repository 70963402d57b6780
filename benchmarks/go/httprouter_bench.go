// httprouter (Go), on the same tables, through Router.Lookup (the match without ServeHTTP) under
// the request's method; then the route's id (the handle found, called: it sets lastID) and every
// parameter's name and value (the Params Lookup returns).
// Usage: httprouter_bench ROUTES REQUESTS TABLE [seconds]
package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"
)

// lastID is set by a handler when the checker calls it: it names the route a lookup found.
var lastID int

type request struct {
	method, path string
	expected     int
}

func lines(path string) [][]string {
	f, err := os.Open(path)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	var out [][]string
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		if fields := strings.Fields(s.Text()); len(fields) >= 2 {
			out = append(out, fields)
		}
	}
	return out
}

// lookup finds the route of `path` under `method`: its id (0 for none) and the lengths of every
// parameter's name and value.
func lookup(router *httprouter.Router, method, path string) (int, int) {
	h, params, _ := router.Lookup(method, path)
	if h == nil {
		return 0, 0
	}
	h(nil, nil, params)
	bytes := 0
	for _, p := range params {
		bytes += len(p.Key) + len(p.Value)
	}
	return lastID, bytes
}

func main() {
	table := os.Args[3]
	seconds := 0.2
	if len(os.Args) > 4 {
		seconds, _ = strconv.ParseFloat(os.Args[4], 64)
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	router := httprouter.New()
	routes := lines(os.Args[1])
	for i, r := range routes {
		if r[0] == "-" || strings.Contains(r[1], "://") || strings.Contains(r[1], "(") {
			fmt.Printf("{\"door\": \"httprouter (Go)\", \"table\": %q, \"unsupported\": \"patterns without a method, with schemes, constraints or optional parts\"}\n", table)
			return
		}
		id := i + 1
		func() {
			defer func() {
				if e := recover(); e != nil {
					fmt.Printf("{\"door\": \"httprouter (Go)\", \"table\": %q, \"unsupported\": %q}\n", table, fmt.Sprint(e))
					os.Exit(0)
				}
			}()
			router.Handle(r[0], r[1], func(w http.ResponseWriter, q *http.Request, p httprouter.Params) { lastID = id })
		}()
	}
	compiled := time.Since(start)
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	var timed []request
	wrong, checked := 0, 0
	for _, q := range lines(os.Args[2]) {
		if q[2] == "bad" {
			continue
		}
		want, _ := strconv.Atoi(q[2])
		got, _ := lookup(router, q[0], q[1])
		if got != want {
			if wrong < 3 {
				fmt.Fprintf(os.Stderr, "httprouter wrong: %s %s -> %d, want %d\n", q[0], q[1], got, want)
			}
			wrong++
		}
		checked++
		timed = append(timed, request{q[0], q[1], want})
	}
	// One pass's sums, as every harness reports them (the driver checks them against the table's).
	var routeSum, paramBytes int
	pass := func() {
		ids, bytes := 0, 0
		for _, q := range timed {
			id, b := lookup(router, q.method, q.path)
			ids += id
			bytes += b
		}
		routeSum += ids
		paramBytes += bytes
	}
	pass()
	passRoutes, passBytes := routeSum, paramBytes
	t := time.Now()
	pass()
	one := time.Since(t).Seconds()
	passes := int(seconds/one) + 1
	var ns []string
	for b := 0; b < 7; b++ {
		t = time.Now()
		for p := 0; p < passes; p++ {
			pass()
		}
		ns = append(ns, fmt.Sprintf("%.2f", time.Since(t).Seconds()/float64(passes*len(timed))*1e9))
	}
	perRoute := float64(after.HeapAlloc-before.HeapAlloc) / float64(len(routes))
	fmt.Printf("{\"door\": \"httprouter (Go)\", \"table\": %q, \"lookups_per_batch\": %d, \"ns\": [%s], \"routes\": %d, \"checked\": %d, \"wrong\": %d, \"compile_ms\": %.2f, \"rss_bytes_per_route\": %.0f, \"route_sum\": %d, \"param_bytes\": %d}\n",
		table, passes*len(timed), strings.Join(ns, ", "), len(routes), checked, wrong, compiled.Seconds()*1e3, perRoute, passRoutes, passBytes)
}

