/*
 * interlock._speedups: Router.match's common answer, in C over the library's ABI.
 *
 * Optional, in the manner of markupsafe's and simplejson's: the package works without it (the
 * ctypes path, _router.py), and INTERLOCK_PURE_PYTHON=1 makes it unused. Built against CPython's
 * limited API 3.10 (METH_FASTCALL, a str's own UTF-8), so one abi3 build serves every CPython
 * from 3.10 on (setup.py's ABI3_FLOOR and wheel tag follow Py_LIMITED_API below).
 *
 * It converts, and decides nothing. Three types:
 * - Door, one per router (`router._door`): the door's own match handle and parameter buffer, and
 *   what the answers are made of. The GIL is held from the lookup until what the lookup wrote is
 *   copied out, so one handle serves every thread (an abi3 extension never runs without a GIL).
 * - RouterBase, interlock.Router's base: where a router keeps its door. Router.match is
 *   router_match, a method of Router (METH_FASTCALL | METH_KEYWORDS; match_method makes it, with
 *   the ctypes path's doc): a call makes no bound method, argument tuple or keyword dict, and
 *   `router.match` kept alone is a bound method, which keeps the router alive with no reference
 *   cycle through it.
 * - Match, interlock.Match: the named tuple, made and freed here, its fields read by CPython
 *   without a call (below, at its type).
 *
 * A call makes the common answers itself: no route (None), or a route whose head (id, name,
 * pattern) the router knows, as a Match with its parameters. The lookup is the library's
 * (ilk_router_match_packed, reached through the address ctypes found, so both paths use the one
 * library the package loaded). Everything else is the ctypes path's (`router._match_ctypes`, called
 * with the same arguments), which holds the rules and the error messages: an argument the door
 * does not take as it is (no exact str, a method the package has not made yet, a lone surrogate,
 * a keyword the compiler did not intern), a route whose head is unknown or which has data, an
 * error, method not allowed, long parameters, and any call once the router is closed. `entries`
 * makes a batch's answers (MatchList's) the same way, all at once.
 *
 * What an answer costs is mostly making it, so a door makes each parameter name once (interned)
 * and keeps the methods it met, and a Match is allocated and filled as tuple's new would, without
 * the argument tuples that calling tuple's new takes.
 */
#define Py_LIMITED_API 0x030A0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>     /* T_OBJECT */
#include <string.h>

#include "interlock.h"

/* The batch layout's element sizes are those of the types read from it (entries). */
_Static_assert(ILK_BATCH_STATUS_SIZE == sizeof(int32_t) && ILK_BATCH_ROUTE_ID_SIZE == sizeof(uint32_t)
               && ILK_BATCH_OFFSET_SIZE == sizeof(size_t), "the batch layout of interlock.h is not this machine's");

typedef int64_t (*match_packed_fn)(ilk_router *router, const char *method, const char *uri,
                                   size_t uri_len, ilk_match *m);

/* Parameter names a door has made, by a hash of their bytes: a name is made (and hashed) once,
 * not at every match. A slot holds the latest name that hashed to it. */
#define NAME_SLOTS 256
#define NAME_BYTES 32       /* longer names are made at each match */
typedef struct {
    PyObject *name;
    Py_ssize_t size;
    char bytes[NAME_BYTES];
} NameSlot;

/* Methods a door has met (the package's bytes for each, whose text is the method's UTF-8). */
#define METHOD_SLOTS 8
typedef struct {
    PyObject *bytes;
    const char *text;
    Py_ssize_t size;
} MethodSlot;

/* Names looked up on every call, made once. */
static PyObject *ctypes_name, *uri_keyword, *method_keyword;
static PyObject *door_type, *router_base_type;

/* Tuple's own destructor; where a tuple's items lie (tuple_items_offset). */
static destructor tuple_dealloc_slot;
static Py_ssize_t items_offset = -1;

static PyObject **items_of(PyObject *tuple) {
    return (PyObject **)((char *)tuple + items_offset);
}

/* The most parameter text a match copies out (a longer one is the ctypes path's). */
#define PACKED_MAX 4096

typedef struct {
    PyObject_HEAD
    match_packed_fn match;
    ilk_router *router;     /* NULL once the router is closed */
    ilk_match *handle;
    const char *buffer;     /* where the library writes the parameters */
    Py_ssize_t capacity;
    PyObject *heads;        /* a Heads (below): route id -> (id, name, pattern), the router's `_heads` */
    PyObject *methods;      /* dict: method str -> bytes, the package's (_text._METHODS) */
    PyObject *match_type;   /* interlock.Match */
    MethodSlot methods_met[METHOD_SLOTS];  /* methods met before, by their text (see method_text) */
    int next_method_slot;
    PyObject *owner;        /* what owns the handle and the buffer (a _MatchSlot) */
    allocfunc match_alloc;  /* the Match type's own allocator: a Match made as tuple's new makes it */
    NameSlot names[NAME_SLOTS];    /* parameter names made before, interned (see name_of) */
} Door;

/* interlock.Router's base with the accelerator: where the router keeps its door. */
typedef struct {
    PyObject_HEAD
    PyObject *door;         /* `router._door`: a Door, or None/NULL (then every call is the ctypes path's) */
} RouterBase;

/* The allocator of a Match type (a tuple type, whose items lie where a tuple's do), or NULL
 * with an error set for what is none. */
static allocfunc match_allocator(PyObject *match_type) {
    if (!PyType_Check(match_type) || !PyType_IsSubtype((PyTypeObject *)match_type, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "a Match type is a tuple type");
        return NULL;
    }
    return (allocfunc)PyType_GetSlot((PyTypeObject *)match_type, Py_tp_alloc);
}

static void *address(PyObject *value, const char *what) {
    void *p = PyLong_AsVoidPtr(value);
    if (p == NULL && !PyErr_Occurred())
        PyErr_Format(PyExc_ValueError, "Door: %s is NULL", what);
    return p;
}

/* Heads: the router's `_heads` with the accelerator, route id -> head (id, name, pattern), as a
 * dict would hold them, in an array by id (the library's ids are small and reused), so that a
 * match finds its route's head without making an int and hashing it. Python code sets, gets and
 * pops heads (_changes.py); an id past HEADS_MAX is not kept (a cache: its matches are the ctypes
 * path's). A head holds no container, so Heads takes no part in the garbage collector. */
#define HEADS_MAX ((Py_ssize_t)1 << 22)
typedef struct {
    PyObject_HEAD
    PyObject **table;       /* by route id: the head (a strong reference) or NULL */
    Py_ssize_t size;
} Heads;

static PyObject *heads_type;

/* The route id `key` as an index of the table; -1 (no error set) for one past HEADS_MAX, -2 with
 * an error set for what is no int of a route id. */
static Py_ssize_t heads_index(PyObject *key) {
    if (!PyLong_Check(key)) {
        PyErr_Format(PyExc_TypeError, "a route id is an int, not %R", (PyObject *)Py_TYPE(key));
        return -2;
    }
    Py_ssize_t id = PyLong_AsSsize_t(key);
    if (id == -1 && PyErr_Occurred())
        PyErr_Clear();      /* past Py_ssize_t: not kept */
    else if (id < 0) {
        PyErr_Format(PyExc_ValueError, "a route id is not negative: %R", key);
        return -2;
    }
    return id >= 0 && id < HEADS_MAX ? id : -1;
}

static PyObject *heads_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    if (PyTuple_Size(args) != 0 || (kwargs != NULL && PyDict_Size(kwargs) != 0)) {
        PyErr_SetString(PyExc_TypeError, "Heads() takes no arguments");
        return NULL;
    }
    return PyType_GenericAlloc(type, 0);
}

static void heads_dealloc(PyObject *self) {
    Heads *h = (Heads *)self;
    PyTypeObject *type = Py_TYPE(self);
    for (Py_ssize_t i = 0; i < h->size; i++)
        Py_XDECREF(h->table[i]);
    PyMem_Free(h->table);
    freefunc free_fn = (freefunc)PyType_GetSlot(type, Py_tp_free);
    free_fn(self);
    Py_DECREF(type);
}

static Py_ssize_t heads_length(PyObject *self) {
    Heads *h = (Heads *)self;
    Py_ssize_t count = 0;
    for (Py_ssize_t i = 0; i < h->size; i++)
        count += h->table[i] != NULL;
    return count;
}

/* The head of route `key`, borrowed, or NULL (with an error set only for a key of the wrong kind). */
static PyObject *heads_find(Heads *h, PyObject *key) {
    Py_ssize_t id = heads_index(key);
    return id >= 0 && id < h->size ? h->table[id] : NULL;
}

static PyObject *heads_subscript(PyObject *self, PyObject *key) {
    PyObject *head = heads_find((Heads *)self, key);
    if (head == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetObject(PyExc_KeyError, key);
        return NULL;
    }
    Py_INCREF(head);
    return head;
}

/* heads[key] = head, or del heads[key] (`head` NULL). */
static int heads_assign(PyObject *self, PyObject *key, PyObject *head) {
    Heads *h = (Heads *)self;
    Py_ssize_t id = heads_index(key);
    if (id == -2)
        return -1;
    if (head == NULL) {
        PyObject *old = id >= 0 && id < h->size ? h->table[id] : NULL;
        if (old == NULL) {
            PyErr_SetObject(PyExc_KeyError, key);
            return -1;
        }
        h->table[id] = NULL;
        Py_DECREF(old);     /* a tuple of an int and strs: letting go of it runs no Python code */
        return 0;
    }
    if (id < 0)
        return 0;           /* past HEADS_MAX: not kept */
    if (id >= h->size) {
        Py_ssize_t size = h->size ? h->size : 64;
        while (size <= id)
            size *= 2;
        PyObject **table = PyMem_Realloc(h->table, (size_t)size * sizeof *table);
        if (table == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        memset(table + h->size, 0, (size_t)(size - h->size) * sizeof *table);
        h->table = table;
        h->size = size;
    }
    PyObject *old = h->table[id];
    Py_INCREF(head);
    h->table[id] = head;
    Py_XDECREF(old);
    return 0;
}

/* heads.get(key, default=None) and heads.pop(key, default), as a dict's. */
static PyObject *heads_get_or_pop(PyObject *self, PyObject *const *args, Py_ssize_t nargs, int pop) {
    if (nargs < 1 || nargs > 2) {
        PyErr_Format(PyExc_TypeError, "%s expected 1 or 2 arguments, got %zd", pop ? "pop" : "get", nargs);
        return NULL;
    }
    PyObject *head = heads_find((Heads *)self, args[0]);
    if (head == NULL) {
        if (PyErr_Occurred())
            return NULL;
        if (pop && nargs < 2) {
            PyErr_SetObject(PyExc_KeyError, args[0]);
            return NULL;
        }
        PyObject *fallback = nargs == 2 ? args[1] : Py_None;
        Py_INCREF(fallback);
        return fallback;
    }
    Py_INCREF(head);
    if (pop && heads_assign(self, args[0], NULL) < 0) {
        Py_DECREF(head);
        return NULL;
    }
    return head;
}

static PyObject *heads_get(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    return heads_get_or_pop(self, args, nargs, 0);
}

static PyObject *heads_pop(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    return heads_get_or_pop(self, args, nargs, 1);
}

static PyMethodDef heads_methods[] = {
    {"get", (PyCFunction)(void (*)(void))heads_get, METH_FASTCALL, "The head of a route id, or the default."},
    {"pop", (PyCFunction)(void (*)(void))heads_pop, METH_FASTCALL, "The head of a route id, forgotten; or the default."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot heads_slots[] = {
    {Py_tp_new, heads_new},
    {Py_tp_dealloc, heads_dealloc},
    {Py_tp_methods, heads_methods},
    {Py_mp_length, heads_length},
    {Py_mp_subscript, heads_subscript},
    {Py_mp_ass_subscript, heads_assign},
    {Py_tp_doc, "A router's heads of routes by id, for its door (see interlock/_speedups.c)."},
    {0, NULL},
};

static PyType_Spec heads_spec = {"interlock._speedups.Heads", sizeof(Heads), 0, Py_TPFLAGS_DEFAULT, heads_slots};

/* Door(match_packed, router, handle, buffer, capacity, heads, methods, match_type, owner): the
 * addresses as ints (ctypes'), the dicts and the Match type the Python code uses. */
static PyObject *door_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *fn, *router, *handle, *buffer, *heads, *methods, *match_type, *owner;
    Py_ssize_t capacity;
    if (kwargs != NULL && PyDict_Size(kwargs) != 0) {
        PyErr_SetString(PyExc_TypeError, "Door takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OOOOnO!O!OO", &fn, &router, &handle, &buffer, &capacity, (PyTypeObject *)heads_type, &heads,
                          &PyDict_Type, &methods, &match_type, &owner))
        return NULL;
    match_packed_fn match = (match_packed_fn)address(fn, "match_packed");
    ilk_router *router_p = match ? address(router, "router") : NULL;
    ilk_match *handle_p = router_p ? address(handle, "handle") : NULL;
    const char *buffer_p = handle_p ? address(buffer, "buffer") : NULL;
    if (buffer_p == NULL)
        return NULL;
    if (capacity < 0 || match_allocator(match_type) == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "Door: a negative capacity, or a Match that is no tuple type");
        return NULL;
    }
    Door *d = (Door *)PyType_GenericAlloc(type, 0);
    if (d == NULL)
        return NULL;
    d->match = match;
    d->router = router_p;
    d->handle = handle_p;
    d->buffer = buffer_p;
    d->capacity = capacity;
    d->match_alloc = match_allocator(match_type);
    Py_INCREF(heads);
    d->heads = heads;
    Py_INCREF(methods);
    d->methods = methods;
    Py_INCREF(match_type);
    d->match_type = match_type;
    Py_INCREF(owner);
    d->owner = owner;
    return (PyObject *)d;
}

static void door_dealloc(PyObject *self) {
    Door *d = (Door *)self;
    PyTypeObject *type = Py_TYPE(self);
    Py_XDECREF(d->heads);
    Py_XDECREF(d->methods);
    Py_XDECREF(d->match_type);
    for (int i = 0; i < METHOD_SLOTS; i++)
        Py_XDECREF(d->methods_met[i].bytes);
    Py_XDECREF(d->owner);
    for (int i = 0; i < NAME_SLOTS; i++)
        Py_XDECREF(d->names[i].name);
    freefunc free_fn = (freefunc)PyType_GetSlot(type, Py_tp_free);
    free_fn(self);
    Py_DECREF(type);
}

/* door.close(): the router is being freed; every call from now on is the ctypes path's (which
 * says the router is closed). */
static PyObject *door_close(PyObject *self, PyObject *unused) {
    (void)unused;
    ((Door *)self)->router = NULL;
    Py_RETURN_NONE;
}

/* The name `text` (`size` bytes of UTF-8, `hash` their FNV-1a hash) as a str, new reference: the
 * door's made one where it has it, else made, interned and kept. */
static PyObject *name_of(NameSlot *names, const char *text, Py_ssize_t size, unsigned hash) {
    if (size > NAME_BYTES)
        return PyUnicode_DecodeUTF8(text, size, NULL);
    NameSlot *slot = &names[hash % NAME_SLOTS];
    if (slot->name != NULL && slot->size == size) {
        Py_ssize_t i = 0;
        while (i < size && slot->bytes[i] == text[i])   /* short: no call of memcmp */
            i++;
        if (i == size) {
            Py_INCREF(slot->name);
            return slot->name;
        }
    }
    PyObject *name = PyUnicode_DecodeUTF8(text, size, NULL);
    if (name == NULL)
        return NULL;
    PyUnicode_InternInPlace(&name);
    PyObject *old = slot->name;
    Py_INCREF(name);
    slot->name = name;
    slot->size = size;
    memcpy(slot->bytes, text, (size_t)size);
    Py_XDECREF(old);        /* a str: letting go of it runs no Python code */
    return name;
}

/* The packed parameters ("name\0value\0...", `size` bytes) as a dict; NULL with an error set.
 * `names` is the door's names (name_of), or NULL where none are kept (entries). */
static PyObject *params_of(NameSlot *names, const char *p, Py_ssize_t size) {
    PyObject *params = PyDict_New();
    if (params == NULL)
        return NULL;
    const char *end = p + size;
    while (p < end) {
        /* The name's end and its hash in one pass (a name is short). */
        unsigned hash = 2166136261u;
        const char *name_end = p;
        while (name_end < end && *name_end != 0)
            hash = (hash ^ (unsigned char)*name_end++) * 16777619u;
        if (name_end == end)
            break;
        const char *value = name_end + 1;
        const char *value_end = value < end ? memchr(value, 0, (size_t)(end - value)) : NULL;
        if (value_end == NULL)
            break;
        PyObject *k = names != NULL ? name_of(names, p, name_end - p, hash) : PyUnicode_DecodeUTF8(p, name_end - p, NULL);
        PyObject *v = k ? PyUnicode_DecodeUTF8(value, value_end - value, NULL) : NULL;
        int failed = v == NULL || PyDict_SetItem(params, k, v) < 0;
        Py_XDECREF(k);
        Py_XDECREF(v);
        if (failed) {
            Py_DECREF(params);
            return NULL;
        }
        p = value_end + 1;
    }
    return params;
}

/* A Match of `head` (id, name, pattern) and the packed parameters at `p` (`size` bytes),
 * allocated by the Match type's allocator and filled as tuple's new would fill it. */
static PyObject *make_match(PyObject *match_type, allocfunc match_alloc, NameSlot *names, PyObject *head,
                            const char *p, Py_ssize_t size) {
    if (!PyTuple_Check(head) || PyTuple_Size(head) != 3) {
        PyErr_SetString(PyExc_TypeError, "a route's head is (id, name, pattern)");
        return NULL;
    }
    PyObject *params = params_of(names, p, size);
    if (params == NULL)
        return NULL;
    PyObject *made = match_alloc((PyTypeObject *)match_type, 4);
    if (made == NULL) {
        Py_DECREF(params);
        return NULL;
    }
    PyObject **from = items_of(head), **to = items_of(made);
    for (Py_ssize_t i = 0; i < 3; i++) {
        Py_INCREF(from[i]);
        to[i] = from[i];
    }
    to[3] = params;
    return made;
}

/* The method's bytes for the library (NULL: any method) in *text; 0, or -1 if the ctypes path
 * is to convert it. A door keeps the methods it has met by their text, as most calls repeat a
 * few methods, each a str of its own (a server makes one for each request). */
static int method_text(Door *d, PyObject *method, const char **text) {
    *text = NULL;
    if (method == Py_None)
        return 0;
    if (!PyUnicode_CheckExact(method))    /* a subclass may hash and compare in Python */
        return -1;
    Py_ssize_t size;
    const char *utf8 = PyUnicode_AsUTF8AndSize(method, &size);
    if (utf8 == NULL)
        return -1;      /* a lone surrogate: the ctypes path says so */
    if (size == 0)
        return 0;
    for (int i = 0; i < METHOD_SLOTS && d->methods_met[i].bytes != NULL; i++) {
        MethodSlot *slot = &d->methods_met[i];
        if (slot->size == size && memcmp(slot->text, utf8, (size_t)size) == 0) {
            *text = slot->text;
            return 0;
        }
    }
    /* Only the methods the package has made already (with its checks): others it makes. */
    PyObject *made = PyDict_GetItemWithError(d->methods, method);
    char *made_text;
    Py_ssize_t made_size;
    if (made == NULL || !PyBytes_Check(made) || PyBytes_AsStringAndSize(made, &made_text, &made_size) < 0)
        return -1;
    *text = made_text;
    if (made_size == size && memcmp(made_text, utf8, (size_t)size) == 0) {   /* the method's own text */
        MethodSlot *slot = &d->methods_met[d->next_method_slot];
        d->next_method_slot = (d->next_method_slot + 1) % METHOD_SLOTS;
        PyObject *old = slot->bytes;
        Py_INCREF(made);
        slot->bytes = made;
        slot->text = made_text;
        slot->size = made_size;
        Py_XDECREF(old);    /* bytes: letting go of them runs no Python code */
    }
    return 0;
}

/* The answer of a match of `uri` under `method` through `d`, or NULL: with an error set, or with
 * *fall set where the ctypes path is to take the call (see the top of this file). */
static PyObject *door_match(Door *d, PyObject *uri, PyObject *method, int *fall) {
    const char *method_bytes;
    *fall = 1;
    if (d->router == NULL || !PyUnicode_CheckExact(uri) || method_text(d, method, &method_bytes) < 0)
        return NULL;
    /* The str's own UTF-8 (kept by it; an ASCII str's text itself): a lone surrogate has none,
     * and the ctypes path says where it is. */
    Py_ssize_t length;
    const char *text = PyUnicode_AsUTF8AndSize(uri, &length);
    if (text == NULL || d->router == NULL)      /* or closed while the method's hash ran */
        return NULL;
    int64_t rc = d->match(d->router, method_bytes, text, (size_t)length, d->handle);

    const int64_t matched = (int64_t)1 << 32;
    Py_ssize_t size = (Py_ssize_t)(rc & 0xFFFFFFFF);
    if (rc == ILK_NOT_FOUND) {
        *fall = 0;
        Py_RETURN_NONE;
    }
    if (rc < matched || size > d->capacity || size > PACKED_MAX)
        return NULL;
    /* Copied before anything is allocated or let go of: either may run the garbage collector,
     * and a finalizer Python code, during which another thread may look up through this door. */
    char packed[PACKED_MAX];
    memcpy(packed, d->buffer, (size_t)size);
    Heads *heads = (Heads *)d->heads;
    int64_t id = rc >> 32;
    PyObject *head = id < heads->size ? heads->table[id] : NULL;
    if (head == NULL || !PyTuple_Check(head) || PyTuple_Size(head) != 3)
        return NULL;
    *fall = 0;
    Py_INCREF(head);    /* borrowed from `heads`, which a change may empty during an allocation */
    PyObject *answer = make_match(d->match_type, d->match_alloc, d->names, head,
                                  packed, size);
    Py_DECREF(head);
    return answer;
}

/* The call's uri and method, positional or by keyword (the vectorcall convention: `nargs`
 * positional arguments, then the values of the keywords `kwnames` names); 0, or -1 if the ctypes
 * path is to take the call (it says what is wrong with it). */
static int arguments(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **uri, PyObject **method) {
    if (nargs > 2)
        return -1;
    *uri = nargs >= 1 ? args[0] : NULL;
    *method = nargs >= 2 ? args[1] : Py_None;
    Py_ssize_t keywords = kwnames != NULL ? PyTuple_Size(kwnames) : 0;
    int method_given = nargs >= 2;
    for (Py_ssize_t i = 0; i < keywords; i++) {
        PyObject *name = PyTuple_GetItem(kwnames, i);
        /* The compiler interns the names a call spells out; any other is the ctypes path's. */
        if (name == uri_keyword && *uri == NULL) {
            *uri = args[nargs + i];
        } else if (name == method_keyword && !method_given) {
            *method = args[nargs + i];
            method_given = 1;
        } else {
            return -1;      /* an argument given twice, or a keyword of another name */
        }
    }
    return *uri != NULL ? 0 : -1;
}

/* The ctypes path's answer to the call (or its error), with the same arguments. */
static PyObject *fall_back(PyObject *router, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    if (PyErr_Occurred())
        PyErr_Clear();
    Py_ssize_t keywords = kwnames != NULL ? PyTuple_Size(kwnames) : 0;
    PyObject *positional = PyTuple_New(nargs);
    PyObject *named = positional != NULL && keywords > 0 ? PyDict_New() : NULL;
    PyObject *method = positional != NULL && (keywords == 0 || named != NULL) ? PyObject_GetAttr(router, ctypes_name) : NULL;
    PyObject *answer = NULL;
    if (method != NULL) {
        for (Py_ssize_t i = 0; i < nargs; i++) {
            Py_INCREF(args[i]);
            PyTuple_SetItem(positional, i, args[i]);
        }
        int failed = 0;
        for (Py_ssize_t i = 0; i < keywords && !failed; i++)
            failed = PyDict_SetItem(named, PyTuple_GetItem(kwnames, i), args[nargs + i]) < 0;
        answer = failed ? NULL : PyObject_Call(method, positional, named);
    }
    Py_XDECREF(method);
    Py_XDECREF(named);
    Py_XDECREF(positional);
    return answer;
}

/* entries(blob, count, heads, head_of, match_type): every answer of a batch (the layout of
 * ilk_match_batch_copy: int32 statuses, uint32 route ids, count + 1 size_t offsets, the text), a
 * Match for each that matched (its head from `heads`, or else `head_of(route_id)`), None for the
 * others: what MatchList's entries are, made at once. */
static PyObject *entries(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *blob, *heads, *head_of, *match_type;
    Py_ssize_t count;
    if (!PyArg_ParseTuple(args, "O!nO!OO", &PyBytes_Type, &blob, &count, &PyDict_Type, &heads, &head_of,
                          &match_type))
        return NULL;
    char *data;
    Py_ssize_t size;
    if (PyBytes_AsStringAndSize(blob, &data, &size) < 0)
        return NULL;
    /* The layout's parts begin where the header's ILK_BATCH_*_AT say. */
    const Py_ssize_t per_answer = ILK_BATCH_TEXT_AT(1) - ILK_BATCH_TEXT_AT(0);
    if (count < 0 || count > (size - (Py_ssize_t)ILK_BATCH_TEXT_AT(0)) / per_answer) {
        PyErr_SetString(PyExc_ValueError, "entries: the batch is shorter than its count says");
        return NULL;
    }
    const char *route_ids = data + ILK_BATCH_ROUTE_IDS_AT(count), *offsets = data + ILK_BATCH_OFFSETS_AT(count);
    const Py_ssize_t text_start = (Py_ssize_t)ILK_BATCH_TEXT_AT(count);
    allocfunc match_alloc = match_allocator(match_type);
    if (match_alloc == NULL)
        return NULL;
    PyObject *out = PyList_New(count);
    for (Py_ssize_t i = 0; out != NULL && i < count; i++) {
        int32_t status;
        uint32_t id;
        size_t from, to;
        memcpy(&status, data + ILK_BATCH_STATUS_SIZE * i, sizeof status);
        memcpy(&id, route_ids + ILK_BATCH_ROUTE_ID_SIZE * i, sizeof id);
        memcpy(&from, offsets + ILK_BATCH_OFFSET_SIZE * i, sizeof from);
        memcpy(&to, offsets + ILK_BATCH_OFFSET_SIZE * (i + 1), sizeof to);
        PyObject *entry = NULL;
        if (status != ILK_OK) {
            Py_INCREF(Py_None);
            entry = Py_None;
        } else if (from > to || (Py_ssize_t)to > size - text_start) {
            PyErr_SetString(PyExc_ValueError, "entries: an answer's text lies outside the batch");
        } else {
            PyObject *key = PyLong_FromUnsignedLong(id);
            PyObject *head = key ? PyDict_GetItemWithError(heads, key) : NULL;
            if (head != NULL)
                Py_INCREF(head);
            else if (key != NULL && !PyErr_Occurred())
                head = PyObject_CallFunctionObjArgs(head_of, key, NULL);
            Py_XDECREF(key);
            if (head != NULL) {
                entry = make_match(match_type, match_alloc, NULL, head,
                                   data + text_start + from, (Py_ssize_t)(to - from));
                Py_DECREF(head);
            }
        }
        if (entry == NULL) {
            Py_CLEAR(out);
            break;
        }
        PyList_SetItem(out, i, entry);
    }
    return out;
}

/* Match: interlock.Match with the accelerator, a tuple (route_id, route, pattern, params) made as
 * typing.NamedTuple makes one (Match(...), _make, _replace, _asdict, repr, pickling; _matches.py
 * gives it the named tuple's doc, _fields, _field_defaults, __match_args__ and data), in C so that
 * a match makes and frees it without a Python class's steps, and its fields are member
 * descriptors at the tuple's items, which CPython reads without a call (a named tuple's field is
 * a call of a descriptor). The module is made only where a tuple's items lie where
 * tuple_items_offset finds them (elsewhere the package runs through ctypes); a Match is made only
 * with four items (tuple.__new__ refuses a type with its own new). */
#define MATCH_FIELDS 4
static PyMemberDef match_members[] = {
    {"route_id", T_OBJECT_EX, 0, READONLY, "Alias for field number 0"},
    {"route", T_OBJECT_EX, 0, READONLY, "Alias for field number 1"},
    {"pattern", T_OBJECT_EX, 0, READONLY, "Alias for field number 2"},
    {"params", T_OBJECT_EX, 0, READONLY, "Alias for field number 3"},
    {NULL, 0, 0, 0, NULL},
};
static PyObject *match_class;     /* the Match type, once made */

/* Where a tuple's items begin, as found on a tuple; -1 where they are not right after its
 * header (PyVarObject), as they are in every CPython up to now; -2 on an error. */
static Py_ssize_t tuple_items_offset(void) {
    PyObject *probe = PyTuple_Pack(MATCH_FIELDS, Py_None, Py_True, Py_False, Py_Ellipsis);
    if (probe == NULL)
        return -2;
    PyObject **items = (PyObject **)((char *)probe + sizeof(PyVarObject));
    int found = 1;
    for (Py_ssize_t i = 0; i < MATCH_FIELDS; i++)
        found = found && items[i] == PyTuple_GetItem(probe, i);
    Py_DECREF(probe);
    return found ? (Py_ssize_t)sizeof(PyVarObject) : -1;
}

/* A `type` (Match or a subclass) of the four `fields`, each taken as a new reference. */
static PyObject *match_of(PyTypeObject *type, PyObject *const *fields) {
    allocfunc alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
    PyObject *made = alloc != NULL ? alloc(type, MATCH_FIELDS) : NULL;
    if (made == NULL)
        return NULL;
    PyObject **items = items_of(made);
    for (Py_ssize_t i = 0; i < MATCH_FIELDS; i++) {
        Py_INCREF(fields[i]);
        items[i] = fields[i];
    }
    return made;
}

/* A `cls` of the values of `iterable`, four of them (NamedTuple._make's). */
static PyObject *match_make_of(PyTypeObject *cls, PyObject *iterable) {
    PyObject *fields = PySequence_Tuple(iterable);
    if (fields == NULL)
        return NULL;
    PyObject *made = NULL;
    if (PyTuple_Size(fields) != MATCH_FIELDS)
        PyErr_Format(PyExc_TypeError, "Expected %d arguments, got %zd", MATCH_FIELDS, PyTuple_Size(fields));
    else
        made = match_of(cls, items_of(fields));
    Py_DECREF(fields);
    return made;
}

static PyObject *match_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"route_id", "route", "pattern", "params", NULL};
    PyObject *fields[MATCH_FIELDS];
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOO:Match", keywords, &fields[0], &fields[1], &fields[2],
                                     &fields[3]))
        return NULL;
    return match_of(type, fields);
}

/* Match._make(iterable), a class method. */
static PyObject *match_make(PyObject *cls, PyObject *iterable) {
    return match_make_of((PyTypeObject *)cls, iterable);
}

/* match._replace(**changes): self._make of the fields, those `changes` names replaced. */
static PyObject *match_replace(PyObject *self, PyObject *args, PyObject *kwargs) {
    if (PyTuple_Size(args) != 0) {
        PyErr_Format(PyExc_TypeError, "_replace() takes 1 positional argument but %zd were given",
                     PyTuple_Size(args) + 1);
        return NULL;
    }
    PyObject *changes = kwargs != NULL ? PyDict_Copy(kwargs) : PyDict_New();
    PyObject *values = changes != NULL ? PyTuple_New(MATCH_FIELDS) : NULL;
    PyObject *answer = NULL;
    if (values != NULL) {
        PyObject **items = items_of(self), **out = items_of(values);
        int failed = 0;
        for (Py_ssize_t i = 0; i < MATCH_FIELDS && !failed; i++) {
            PyObject *name = PyUnicode_FromString(match_members[i].name);
            PyObject *given = name != NULL ? PyDict_GetItemWithError(changes, name) : NULL;
            failed = name == NULL || (given == NULL && PyErr_Occurred());
            out[i] = given != NULL ? given : items[i];
            Py_INCREF(out[i]);
            if (given != NULL && PyDict_DelItem(changes, name) < 0)
                failed = 1;
            Py_XDECREF(name);
        }
        if (!failed && PyDict_Size(changes) != 0) {
            PyObject *names = PyDict_Keys(changes);
            if (names != NULL)
                PyErr_Format(PyExc_ValueError, "Got unexpected field names: %R", names);
            Py_XDECREF(names);
        } else if (!failed) {
            answer = PyObject_CallMethod(self, "_make", "(O)", values);
        }
    }
    Py_XDECREF(values);
    Py_XDECREF(changes);
    return answer;
}

/* match._asdict(): the fields by name. */
static PyObject *match_asdict(PyObject *self, PyObject *unused) {
    (void)unused;
    PyObject *fields = PyDict_New();
    PyObject **items = items_of(self);
    for (Py_ssize_t i = 0; fields != NULL && i < MATCH_FIELDS; i++) {
        if (PyDict_SetItemString(fields, match_members[i].name, items[i]) < 0)
            Py_CLEAR(fields);
    }
    return fields;
}

static PyObject *match_getnewargs(PyObject *self, PyObject *unused) {
    (void)unused;
    return PySequence_Tuple(self);
}

static PyObject *match_repr(PyObject *self) {
    PyObject *name = PyObject_GetAttrString((PyObject *)Py_TYPE(self), "__name__");
    if (name == NULL)
        return NULL;
    PyObject **items = items_of(self);
    PyObject *text = PyUnicode_FromFormat("%U(route_id=%R, route=%R, pattern=%R, params=%R)", name, items[0],
                                          items[1], items[2], items[3]);
    Py_DECREF(name);
    return text;
}

static void match_dealloc(PyObject *self) {
    PyTypeObject *type = Py_TYPE(self);
    tuple_dealloc_slot(self);
    Py_DECREF(type);        /* a heap type's instance holds its type */
}

static PyMethodDef match_methods[] = {
    {"_make", match_make, METH_O | METH_CLASS, "A Match of the four values of `iterable`, in order."},
    {"_replace", (PyCFunction)(void (*)(void))match_replace, METH_VARARGS | METH_KEYWORDS,
     "A Match with the fields `changes` names replaced."},
    {"_asdict", match_asdict, METH_NOARGS, "The fields by name."},
    {"__getnewargs__", match_getnewargs, METH_NOARGS, "The fields, as pickling makes the Match again."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot match_slots[] = {
    {Py_tp_new, match_new},
    {Py_tp_dealloc, match_dealloc},
    {Py_tp_repr, match_repr},
    {Py_tp_members, match_members},
    {Py_tp_methods, match_methods},
    {0, NULL},
};

static PyType_Spec match_spec = {"interlock.Match", 0, 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, match_slots};

/* The Match type, its fields at the offsets of a tuple's items. */
static PyObject *new_match_type(void) {
    for (Py_ssize_t i = 0; i < MATCH_FIELDS; i++)
        match_members[i].offset = items_offset + i * (Py_ssize_t)sizeof(PyObject *);
    PyObject *bases = PyTuple_Pack(1, (PyObject *)&PyTuple_Type);
    PyObject *type = bases != NULL ? PyType_FromSpecWithBases(&match_spec, bases) : NULL;
    Py_XDECREF(bases);
    return type;
}

/* new_match(cls, fields): a `cls` (Match or a subclass) of the tuple `fields`, four of them, as
 * the ctypes path makes its answers (tuple.__new__ refuses a Match). */
static PyObject *new_match(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 2 || !PyType_Check(args[0])
        || !PyType_IsSubtype((PyTypeObject *)args[0], (PyTypeObject *)match_class)) {
        PyErr_SetString(PyExc_TypeError, "new_match(cls, fields): cls a Match type");
        return NULL;
    }
    return match_make_of((PyTypeObject *)args[0], args[1]);
}

/* Router.match with the accelerator: a method of RouterBase (METH_FASTCALL | METH_KEYWORDS), so a
 * call `router.match(uri, method)` makes no bound method, no argument tuple and no keyword dict,
 * and a `router.match` kept alone is a bound method holding the router, as any. */
static PyObject *router_match(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *door = ((RouterBase *)self)->door, *uri, *method;
    if (door != NULL && Py_TYPE(door) == (PyTypeObject *)door_type
        && arguments(args, nargs, kwnames, &uri, &method) == 0) {
        int fall;
        Py_INCREF(door);        /* `_door` may be set anew by Python code that an allocation runs */
        PyObject *answer = door_match((Door *)door, uri, method, &fall);
        Py_DECREF(door);
        if (!fall)
            return answer;
    }
    return fall_back(self, args, nargs, kwnames);
}

static void router_base_dealloc(PyObject *self) {
    PyTypeObject *type = Py_TYPE(self);
    Py_CLEAR(((RouterBase *)self)->door);
    freefunc free_fn = (freefunc)PyType_GetSlot(type, Py_tp_free);
    free_fn(self);
    Py_DECREF(type);        /* the subclass's (interlock.Router's): a heap type's instance holds it */
}

static PyMemberDef router_base_members[] = {
    {"_door", T_OBJECT, offsetof(RouterBase, door), 0, "The router's door (see _door.py), or None."},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot router_base_slots[] = {
    {Py_tp_dealloc, router_base_dealloc},
    {Py_tp_members, router_base_members},
    {Py_tp_doc, "What interlock.Router holds for the accelerator: its door (see interlock/_speedups.c)."},
    {0, NULL},
};

/* match_method(router_type, doc): Router.match, router_match as a method of `router_type` (a
 * subclass of RouterBase: interlock.Router), with the ctypes path's doc (and its parameters, for
 * inspect.signature). A method of the very type of the router is one CPython calls straight
 * (its specialized call checks the exact type); a subclass's router calls it as well, through the
 * generic call. The method's definition lives as long as the process. */
static PyObject *match_method(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    static const char signature[] = "match($self, /, uri, method=None)\n--\n\n";
    if (nargs != 2 || !PyType_Check(args[0]) || !PyType_IsSubtype((PyTypeObject *)args[0], (PyTypeObject *)router_base_type)
        || !PyUnicode_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "match_method(router_type, doc): a subclass of RouterBase and a str");
        return NULL;
    }
    Py_ssize_t size;
    const char *text = PyUnicode_AsUTF8AndSize(args[1], &size);
    if (text == NULL)
        return NULL;
    PyMethodDef *def = PyMem_Calloc(1, sizeof *def);
    char *full = PyMem_Malloc(sizeof signature + (size_t)size);
    if (def == NULL || full == NULL) {
        PyMem_Free(def);
        PyMem_Free(full);
        return PyErr_NoMemory();
    }
    memcpy(full, signature, sizeof signature - 1);
    memcpy(full + sizeof signature - 1, text, (size_t)size + 1);
    def->ml_name = "match";
    def->ml_meth = (PyCFunction)(void (*)(void))router_match;
    def->ml_flags = METH_FASTCALL | METH_KEYWORDS;
    def->ml_doc = full;
    return PyDescr_NewMethod((PyTypeObject *)args[0], def);
}

static PyMethodDef door_methods[] = {
    {"close", door_close, METH_NOARGS, "Stops using the router: every call is the ctypes path's from now on."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot door_slots[] = {
    {Py_tp_new, door_new},
    {Py_tp_dealloc, door_dealloc},
    {Py_tp_methods, door_methods},
    {Py_tp_doc, "A router's door to the library's lookup (see interlock/_speedups.c)."},
    {0, NULL},
};

static PyType_Spec door_spec = {"interlock._speedups.Door", sizeof(Door), 0, Py_TPFLAGS_DEFAULT, door_slots};
static PyType_Spec router_base_spec = {"interlock._speedups.RouterBase", sizeof(RouterBase), 0,
                                       Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, router_base_slots};

static PyMethodDef module_functions[] = {
    {"entries", entries, METH_VARARGS, "Every answer of a batch, made at once (see _speedups.c)."},
    {"match_method", (PyCFunction)(void (*)(void))match_method, METH_FASTCALL,
     "Router.match, with the ctypes path's doc (see _speedups.c)."},
    {"new_match", (PyCFunction)(void (*)(void))new_match, METH_FASTCALL, "A Match of a tuple of its fields (see _speedups.c)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "interlock._speedups",
    .m_doc = "Router.match's and match_many's answers in C over libinterlock (optional; see _speedups.c).",
    .m_size = -1,
    .m_methods = module_functions,
};

PyMODINIT_FUNC PyInit__speedups(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    tuple_dealloc_slot = (destructor)PyType_GetSlot(&PyTuple_Type, Py_tp_dealloc);
    items_offset = tuple_items_offset();
    if (tuple_dealloc_slot == NULL || items_offset < 0) {
        if (items_offset == -1)     /* the package then runs through ctypes */
            PyErr_SetString(PyExc_ImportError, "interlock._speedups: a tuple's items are not where this build reads them");
        Py_DECREF(m);
        return NULL;
    }
    ctypes_name = PyUnicode_InternFromString("_match_ctypes");
    uri_keyword = PyUnicode_InternFromString("uri");
    method_keyword = PyUnicode_InternFromString("method");
    door_type = PyType_FromSpec(&door_spec);
    router_base_type = PyType_FromSpec(&router_base_spec);
    heads_type = PyType_FromSpec(&heads_spec);
    if (ctypes_name == NULL || uri_keyword == NULL || method_keyword == NULL || door_type == NULL
        || router_base_type == NULL || heads_type == NULL
        || PyModule_AddObject(m, "Heads", (Py_INCREF(heads_type), heads_type)) < 0
        || PyModule_AddObject(m, "Door", (Py_INCREF(door_type), door_type)) < 0
        || PyModule_AddObject(m, "RouterBase", (Py_INCREF(router_base_type), router_base_type)) < 0
        || (match_class = new_match_type()) == NULL
        || PyModule_AddObject(m, "Match", (Py_INCREF(match_class), match_class)) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
