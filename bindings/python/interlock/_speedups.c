/*
 * interlock._speedups: Router.match's common answer, in C over the library's ABI.
 *
 * Optional, in the manner of markupsafe's and simplejson's: the package works without it (the
 * ctypes path, _router.py), and INTERLOCK_PURE_PYTHON=1 makes it unused. Built against CPython's
 * limited API, so one abi3 build serves every CPython from 3.9 on.
 *
 * It converts, and decides nothing. Three small types:
 * - Door, one per router (`router._door`): the door's own match handle and parameter buffer, and
 *   what the answers are made of. The GIL is held from the lookup until what the lookup wrote is
 *   copied out, so one handle serves every thread (an abi3 extension never runs without a GIL).
 * - Method, Router.match itself (a descriptor, as a function is): `router.match` gives a Bound.
 * - Bound, the router and its door, as a bound method holds its object (so a `router.match` kept
 *   alone keeps the router alive, with no reference cycle through the router).
 *
 * A call makes the common answers itself: no route (None), or a route whose head (id, name,
 * pattern) the router knows, as a Match with its parameters. The lookup is the library's
 * (ilk_router_match_packed, reached through the address ctypes found, so both paths use the one
 * library the package loaded). Everything else is the ctypes path's (`router._match_ctypes`, called
 * with the same arguments), which holds the rules and the error messages: an argument the door
 * does not take as it is (no exact str, a method the package has not made yet, a lone surrogate,
 * an unknown keyword), a route whose head is unknown or which has data, an error, method not
 * allowed, long parameters, and any call once the router is closed. `entries` makes a batch's
 * answers (MatchList's) the same way, all at once.
 *
 * What an answer costs is mostly making it, so a door makes each parameter name once (interned,
 * its hash kept) and a Match through its type's own allocator, as tuple's new would, without the
 * argument tuples that calling tuple's new takes.
 */
#define Py_LIMITED_API 0x03090000
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "interlock.h"

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

/* Names looked up on every call, made once. */
static PyObject *door_name, *ctypes_name, *uri_keyword, *method_keyword;
static PyObject *door_type, *bound_type;

typedef struct {
    PyObject_HEAD
    match_packed_fn match;
    ilk_router *router;     /* NULL once the router is closed */
    ilk_match *handle;
    const char *buffer;     /* where the library writes the parameters */
    Py_ssize_t capacity;
    PyObject *heads;        /* dict: route id -> (id, name, pattern), the router's `_heads` */
    PyObject *methods;      /* dict: method str -> bytes, the package's (_text._METHODS) */
    PyObject *match_type;   /* interlock.Match */
    newfunc tuple_tp_new;   /* tuple's own constructor, where the limited API gives it (3.10 on) */
    PyObject *tuple_new;    /* else tuple.__new__; either makes a Match from its fields */
    PyObject *last_method;  /* the method of the last call and its bytes: most calls repeat it */
    PyObject *last_method_bytes;
    PyObject *owner;        /* what owns the handle and the buffer (a _MatchSlot) */
    allocfunc match_alloc;  /* the Match type's own allocator: a Match made as tuple's new makes it */
    NameSlot names[NAME_SLOTS];    /* parameter names made before, interned (see name_of) */
} Door;

typedef struct {
    PyObject_HEAD
    PyObject *ctypes_path;  /* Router._match_ctypes: what the method wraps (its doc, signature) */
} Method;

typedef struct {
    PyObject_HEAD
    PyObject *router;
    Door *door;
} Bound;

/* The allocator of a Match: a tuple subclass's own (tuple's new allocates through it), or NULL
 * where the type is none such, and tuple's new then makes it. */
static allocfunc match_allocator(PyObject *match_type) {
    if (!PyType_Check(match_type) || !PyType_IsSubtype((PyTypeObject *)match_type, &PyTuple_Type))
        return NULL;
    allocfunc alloc = (allocfunc)PyType_GetSlot((PyTypeObject *)match_type, Py_tp_alloc);
    if (alloc == NULL)
        PyErr_Clear();
    return alloc;
}

static void *address(PyObject *value, const char *what) {
    void *p = PyLong_AsVoidPtr(value);
    if (p == NULL && !PyErr_Occurred())
        PyErr_Format(PyExc_ValueError, "Door: %s is NULL", what);
    return p;
}

/* Door(match_packed, router, handle, buffer, capacity, heads, methods, match_type, owner): the
 * addresses as ints (ctypes'), the dicts and the Match type the Python code uses. */
static PyObject *door_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *fn, *router, *handle, *buffer, *heads, *methods, *match_type, *owner;
    Py_ssize_t capacity;
    if (kwargs != NULL && PyDict_Size(kwargs) != 0) {
        PyErr_SetString(PyExc_TypeError, "Door takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OOOOnO!O!OO", &fn, &router, &handle, &buffer, &capacity, &PyDict_Type, &heads,
                          &PyDict_Type, &methods, &match_type, &owner))
        return NULL;
    match_packed_fn match = (match_packed_fn)address(fn, "match_packed");
    ilk_router *router_p = match ? address(router, "router") : NULL;
    ilk_match *handle_p = router_p ? address(handle, "handle") : NULL;
    const char *buffer_p = handle_p ? address(buffer, "buffer") : NULL;
    if (buffer_p == NULL)
        return NULL;
    if (capacity < 0 || !PyType_Check(match_type)) {
        PyErr_SetString(PyExc_ValueError, "Door: a negative capacity, or a Match that is no type");
        return NULL;
    }
    PyObject *tuple_new = PyObject_GetAttrString((PyObject *)&PyTuple_Type, "__new__");
    if (tuple_new == NULL)
        return NULL;
    newfunc tuple_tp_new = (newfunc)PyType_GetSlot(&PyTuple_Type, Py_tp_new);
    if (tuple_tp_new == NULL)
        PyErr_Clear();      /* 3.9: no slots of static types; tuple.__new__ then */
    Door *d = (Door *)PyType_GenericAlloc(type, 0);
    if (d == NULL) {
        Py_DECREF(tuple_new);
        return NULL;
    }
    d->match = match;
    d->router = router_p;
    d->handle = handle_p;
    d->buffer = buffer_p;
    d->capacity = capacity;
    d->tuple_tp_new = tuple_tp_new;
    d->tuple_new = tuple_new;
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
    Py_XDECREF(d->tuple_new);
    Py_XDECREF(d->last_method);
    Py_XDECREF(d->last_method_bytes);
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

/* The name `text` (`size` bytes of UTF-8) as a str, new reference: the door's made one where it
 * has it, else made, interned and kept. `names` is NULL where no door keeps names (entries). */
static PyObject *name_of(NameSlot *names, const char *text, Py_ssize_t size) {
    if (names == NULL || size > NAME_BYTES)
        return PyUnicode_DecodeUTF8(text, size, NULL);
    unsigned hash = 2166136261u;
    for (Py_ssize_t i = 0; i < size; i++)
        hash = (hash ^ (unsigned char)text[i]) * 16777619u;
    NameSlot *slot = &names[hash % NAME_SLOTS];
    if (slot->name != NULL && slot->size == size && memcmp(slot->bytes, text, (size_t)size) == 0) {
        Py_INCREF(slot->name);
        return slot->name;
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

/* The packed parameters ("name\0value\0...", `size` bytes) as a dict; NULL with an error set. */
static PyObject *params_of(NameSlot *names, const char *p, Py_ssize_t size) {
    PyObject *params = PyDict_New();
    if (params == NULL)
        return NULL;
    const char *end = p + size;
    while (p < end) {
        const char *name_end = memchr(p, 0, (size_t)(end - p));
        if (name_end == NULL)
            break;
        const char *value = name_end + 1;
        const char *value_end = value < end ? memchr(value, 0, (size_t)(end - value)) : NULL;
        if (value_end == NULL)
            break;
        PyObject *k = name_of(names, p, name_end - p);
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

/* A Match of `head` (id, name, pattern) and the packed parameters at `p` (`size` bytes): made
 * through the Match type's allocator where it has one (a tuple subclass's own, which is what
 * tuple's new does), else through tuple's new. */
static PyObject *make_match(PyObject *match_type, allocfunc match_alloc, newfunc tuple_tp_new, PyObject *tuple_new,
                            NameSlot *names, PyObject *head, const char *p, Py_ssize_t size) {
    if (!PyTuple_Check(head) || PyTuple_Size(head) != 3) {
        PyErr_SetString(PyExc_TypeError, "a route's head is (id, name, pattern)");
        return NULL;
    }
    PyObject *params = params_of(names, p, size);
    if (params == NULL)
        return NULL;
    /* The Match's own allocation where it has one; else the fields, which tuple's new copies. */
    PyObject *fields = match_alloc != NULL ? match_alloc((PyTypeObject *)match_type, 4) : PyTuple_New(4);
    if (fields == NULL) {
        Py_DECREF(params);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < 3; i++) {
        PyObject *field = PyTuple_GetItem(head, i);
        Py_INCREF(field);
        PyTuple_SetItem(fields, i, field);
    }
    PyTuple_SetItem(fields, 3, params);
    if (match_alloc != NULL)
        return fields;
    PyObject *answer;
    if (tuple_tp_new != NULL) {
        PyObject *call_args = PyTuple_Pack(1, fields);
        answer = call_args ? tuple_tp_new((PyTypeObject *)match_type, call_args, NULL) : NULL;
        Py_XDECREF(call_args);
    } else {
        answer = PyObject_CallFunctionObjArgs(tuple_new, match_type, fields, NULL);
    }
    Py_DECREF(fields);
    return answer;
}

/* The ctypes path's answer to the call (or its error). */
static PyObject *fall_back(PyObject *router, PyObject *args, PyObject *kwargs) {
    if (PyErr_Occurred())
        PyErr_Clear();
    PyObject *method = PyObject_GetAttr(router, ctypes_name);
    if (method == NULL)
        return NULL;
    PyObject *answer = PyObject_Call(method, args, kwargs);
    Py_DECREF(method);
    return answer;
}

/* The method's bytes for the library (NULL: any method) in *text; 0, or -1 if the ctypes path
 * is to convert it. */
static int method_text(Door *d, PyObject *method, const char **text) {
    *text = NULL;
    if (method == Py_None)
        return 0;
    if (!PyUnicode_CheckExact(method))    /* a subclass may hash and compare in Python */
        return -1;
    if (method == d->last_method) {
        *text = PyBytes_AsString(d->last_method_bytes);
        return 0;
    }
    if (PyUnicode_GetLength(method) == 0)
        return 0;
    /* Only the methods the package has made already (with its checks): others it makes. */
    PyObject *made = PyDict_GetItemWithError(d->methods, method);
    if (made == NULL || !PyBytes_Check(made))
        return -1;
    /* Stored before the old ones are let go of: letting go may run Python code, which may call
     * this door again. */
    PyObject *old_method = d->last_method, *old_bytes = d->last_method_bytes;
    Py_INCREF(method);
    Py_INCREF(made);
    d->last_method = method;
    d->last_method_bytes = made;
    *text = PyBytes_AsString(made);
    Py_XDECREF(old_method);
    Py_XDECREF(old_bytes);
    return 0;
}

/* The call's uri and method, positional or by keyword; 0, or -1 if the ctypes path is to take
 * the call (it says what is wrong with it). */
static int arguments(PyObject *args, PyObject *kwargs, PyObject **uri, PyObject **method) {
    Py_ssize_t n = PyTuple_Size(args), keywords = kwargs != NULL ? PyDict_Size(kwargs) : 0;
    *uri = n >= 1 ? PyTuple_GetItem(args, 0) : NULL;
    *method = n >= 2 ? PyTuple_GetItem(args, 1) : Py_None;
    if (n > 2)
        return -1;
    if (keywords > 0) {
        PyObject *kw_uri = PyDict_GetItemWithError(kwargs, uri_keyword);
        PyObject *kw_method = kw_uri != NULL || !PyErr_Occurred() ? PyDict_GetItemWithError(kwargs, method_keyword) : NULL;
        if (PyErr_Occurred())
            return -1;
        if ((kw_uri != NULL && n >= 1) || (kw_method != NULL && n >= 2)
            || keywords != (kw_uri != NULL) + (kw_method != NULL))
            return -1;      /* an argument given twice, or an unknown keyword */
        if (kw_uri != NULL)
            *uri = kw_uri;
        if (kw_method != NULL)
            *method = kw_method;
    }
    return *uri != NULL && *method != NULL ? 0 : -1;
}

/* router.match(uri, method=None) through `d` (see the top of this file). */
static PyObject *door_match(Door *d, PyObject *router, PyObject *args, PyObject *kwargs) {
    PyObject *uri, *method;
    const char *method_bytes;
    if (d->router == NULL || arguments(args, kwargs, &uri, &method) < 0 || !PyUnicode_CheckExact(uri)
        || method_text(d, method, &method_bytes) < 0)
        return fall_back(router, args, kwargs);
    PyObject *utf8 = PyUnicode_AsUTF8String(uri);   /* a lone surrogate: the ctypes path says where */
    if (utf8 == NULL)
        return fall_back(router, args, kwargs);
    char *text;
    Py_ssize_t length;
    if (PyBytes_AsStringAndSize(utf8, &text, &length) < 0) {
        Py_DECREF(utf8);
        return NULL;
    }
    if (d->router == NULL) {      /* closed while the method's hash ran */
        Py_DECREF(utf8);
        return fall_back(router, args, kwargs);
    }
    int64_t rc = d->match(d->router, method_bytes, text, (size_t)length, d->handle);

    const int64_t matched = (int64_t)1 << 32;
    Py_ssize_t size = (Py_ssize_t)(rc & 0xFFFFFFFF);
    char packed[4096];
    if (rc >= matched && size <= d->capacity && size <= (Py_ssize_t)sizeof packed) {
        /* Copied before anything is allocated or let go of: either may run the garbage
         * collector, and a finalizer Python code, during which another thread may look up
         * through this door. */
        memcpy(packed, d->buffer, (size_t)size);
    }
    Py_DECREF(utf8);
    if (rc == ILK_NOT_FOUND)
        Py_RETURN_NONE;
    if (rc < matched || size > d->capacity || size > (Py_ssize_t)sizeof packed)
        return fall_back(router, args, kwargs);
    PyObject *id = PyLong_FromLongLong(rc >> 32);
    if (id == NULL)
        return NULL;
    PyObject *head = PyDict_GetItemWithError(d->heads, id);
    Py_DECREF(id);
    if (head == NULL || !PyTuple_Check(head) || PyTuple_Size(head) != 3)
        return fall_back(router, args, kwargs);
    Py_INCREF(head);    /* borrowed from `heads`, which a change may empty during an allocation */
    PyObject *answer = make_match(d->match_type, d->match_alloc, d->tuple_tp_new, d->tuple_new, d->names, head,
                                  packed, size);
    Py_DECREF(head);
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
    if (count < 0 || count > (size - 8) / 16) {
        PyErr_SetString(PyExc_ValueError, "entries: the batch is shorter than its count says");
        return NULL;
    }
    const Py_ssize_t text_start = 16 * count + 8;
    PyObject *tuple_new = PyObject_GetAttrString((PyObject *)&PyTuple_Type, "__new__");
    if (tuple_new == NULL)
        return NULL;
    newfunc tuple_tp_new = (newfunc)PyType_GetSlot(&PyTuple_Type, Py_tp_new);
    if (tuple_tp_new == NULL)
        PyErr_Clear();
    allocfunc match_alloc = match_allocator(match_type);
    PyObject *out = PyList_New(count);
    for (Py_ssize_t i = 0; out != NULL && i < count; i++) {
        int32_t status;
        uint32_t id;
        size_t from, to;
        memcpy(&status, data + 4 * i, sizeof status);
        memcpy(&id, data + 4 * count + 4 * i, sizeof id);
        memcpy(&from, data + 8 * count + 8 * i, sizeof from);
        memcpy(&to, data + 8 * count + 8 * (i + 1), sizeof to);
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
                entry = make_match(match_type, match_alloc, tuple_tp_new, tuple_new, NULL, head,
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
    Py_DECREF(tuple_new);
    return out;
}

/* Method(ctypes_path): Router.match. */
static PyObject *method_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *ctypes_path;
    if ((kwargs != NULL && PyDict_Size(kwargs) != 0) || !PyArg_ParseTuple(args, "O", &ctypes_path)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "Method takes the ctypes path only");
        return NULL;
    }
    Method *m = (Method *)PyType_GenericAlloc(type, 0);
    if (m == NULL)
        return NULL;
    Py_INCREF(ctypes_path);
    m->ctypes_path = ctypes_path;
    return (PyObject *)m;
}

static void method_dealloc(PyObject *self) {
    PyTypeObject *type = Py_TYPE(self);
    Py_XDECREF(((Method *)self)->ctypes_path);
    freefunc free_fn = (freefunc)PyType_GetSlot(type, Py_tp_free);
    free_fn(self);
    Py_DECREF(type);
}

/* router.match: the router with its door, bound; Router.match: the method itself. A router
 * without a door (none made for it) gets its ctypes path. */
static PyObject *method_get(PyObject *self, PyObject *router, PyObject *type) {
    (void)type;
    if (router == NULL || router == Py_None) {
        Py_INCREF(self);
        return self;
    }
    PyObject *door = PyObject_GetAttr(router, door_name);
    if (door == NULL || !PyObject_TypeCheck(door, (PyTypeObject *)door_type)) {
        Py_XDECREF(door);
        PyErr_Clear();
        return PyObject_GetAttr(router, ctypes_name);
    }
    Bound *b = (Bound *)PyType_GenericAlloc((PyTypeObject *)bound_type, 0);
    if (b == NULL) {
        Py_DECREF(door);
        return NULL;
    }
    Py_INCREF(router);
    b->router = router;
    b->door = (Door *)door;
    return (PyObject *)b;
}

/* Router.match(router, uri, method=None): the ctypes path's. */
static PyObject *method_call(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    Py_ssize_t n = PyTuple_Size(args);
    if (n < 1) {
        PyErr_SetString(PyExc_TypeError, "Router.match() needs the router as its first argument");
        return NULL;
    }
    PyObject *rest = PyTuple_GetSlice(args, 1, n);
    if (rest == NULL)
        return NULL;
    PyObject *answer = fall_back(PyTuple_GetItem(args, 0), rest, kwargs);
    Py_DECREF(rest);
    return answer;
}

/* The method's doc and name are the ctypes path's, and it is what the method wraps (so that
 * inspect.signature and help read it). */
static PyObject *method_doc(PyObject *self, void *closure) {
    (void)closure;
    return PyObject_GetAttrString(((Method *)self)->ctypes_path, "__doc__");
}

static PyObject *method_name(PyObject *self, void *closure) {
    (void)closure;
    return PyObject_GetAttrString(((Method *)self)->ctypes_path, "__name__");
}

static PyObject *method_wrapped(PyObject *self, void *closure) {
    (void)closure;
    Py_INCREF(((Method *)self)->ctypes_path);
    return ((Method *)self)->ctypes_path;
}

static void bound_dealloc(PyObject *self) {
    Bound *b = (Bound *)self;
    PyTypeObject *type = Py_TYPE(self);
    Py_XDECREF(b->router);
    Py_XDECREF((PyObject *)b->door);
    freefunc free_fn = (freefunc)PyType_GetSlot(type, Py_tp_free);
    free_fn(self);
    Py_DECREF(type);
}

static PyObject *bound_call(PyObject *self, PyObject *args, PyObject *kwargs) {
    Bound *b = (Bound *)self;
    return door_match(b->door, b->router, args, kwargs);
}

static PyObject *bound_self(PyObject *self, void *closure) {
    (void)closure;
    Py_INCREF(((Bound *)self)->router);
    return ((Bound *)self)->router;
}

/* The bound method wraps the router's ctypes path, bound: its doc, name and signature. */
static PyObject *bound_wrapped(PyObject *self, void *closure) {
    (void)closure;
    return PyObject_GetAttr(((Bound *)self)->router, ctypes_name);
}

static PyObject *bound_attribute(PyObject *self, const char *name) {
    PyObject *wrapped = bound_wrapped(self, NULL);
    if (wrapped == NULL)
        return NULL;
    PyObject *value = PyObject_GetAttrString(wrapped, name);
    Py_DECREF(wrapped);
    return value;
}

static PyObject *bound_doc(PyObject *self, void *closure) {
    (void)closure;
    return bound_attribute(self, "__doc__");
}

static PyObject *bound_name(PyObject *self, void *closure) {
    (void)closure;
    return bound_attribute(self, "__name__");
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

static PyGetSetDef method_getset[] = {
    {"__doc__", method_doc, NULL, NULL, NULL},
    {"__name__", method_name, NULL, NULL, NULL},
    {"__wrapped__", method_wrapped, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot method_slots[] = {
    {Py_tp_new, method_new},
    {Py_tp_dealloc, method_dealloc},
    {Py_tp_descr_get, method_get},
    {Py_tp_call, method_call},
    {Py_tp_getset, method_getset},
    {0, NULL},
};

static PyGetSetDef bound_getset[] = {
    {"__self__", bound_self, NULL, "The router.", NULL},
    {"__doc__", bound_doc, NULL, NULL, NULL},
    {"__name__", bound_name, NULL, NULL, NULL},
    {"__wrapped__", bound_wrapped, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot bound_slots[] = {
    {Py_tp_dealloc, bound_dealloc},
    {Py_tp_call, bound_call},
    {Py_tp_getset, bound_getset},
    {0, NULL},
};

static PyType_Spec door_spec = {"interlock._speedups.Door", sizeof(Door), 0, Py_TPFLAGS_DEFAULT, door_slots};
static PyType_Spec method_spec = {"interlock._speedups.Method", sizeof(Method), 0, Py_TPFLAGS_DEFAULT, method_slots};
static PyType_Spec bound_spec = {"interlock._speedups.BoundMatch", sizeof(Bound), 0, Py_TPFLAGS_DEFAULT, bound_slots};

static PyMethodDef module_functions[] = {
    {"entries", entries, METH_VARARGS, "Every answer of a batch, made at once (see _speedups.c)."},
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
    door_name = PyUnicode_InternFromString("_door");
    ctypes_name = PyUnicode_InternFromString("_match_ctypes");
    uri_keyword = PyUnicode_InternFromString("uri");
    method_keyword = PyUnicode_InternFromString("method");
    door_type = PyType_FromSpec(&door_spec);
    bound_type = PyType_FromSpec(&bound_spec);
    PyObject *method_type = PyType_FromSpec(&method_spec);
    if (door_name == NULL || ctypes_name == NULL || uri_keyword == NULL || method_keyword == NULL || door_type == NULL || bound_type == NULL || method_type == NULL
        || PyModule_AddObject(m, "Door", (Py_INCREF(door_type), door_type)) < 0
        || PyModule_AddObject(m, "BoundMatch", (Py_INCREF(bound_type), bound_type)) < 0
        || PyModule_AddObject(m, "Method", method_type) < 0) {
        Py_XDECREF(method_type);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
