/*
 * interlock._speedups: Router.match's common answer, in C over the library's ABI.
 *
 * Optional, in the manner of markupsafe's and simplejson's: the package works without it (the
 * ctypes path, _router.py), and INTERLOCK_PURE_PYTHON=1 makes it unused. Built against CPython's
 * limited API, so one abi3 build serves every CPython from 3.9 on.
 *
 * It converts, and decides nothing. A router's door is its `match` (an attribute of the router
 * object, made with it). The lookup is the library's (ilk_router_match_packed, reached through the
 * address ctypes found, so both paths use the one library the package loaded), into the door's own
 * match handle: the GIL is held from the lookup until what it wrote is copied out, so one handle
 * serves every thread (an abi3 extension never runs without a GIL). The door makes the common answers
 * itself: no route (None), or a route whose head (id, name, pattern) the router knows, as a Match
 * with its parameters. Everything else is the ctypes path's, called with the same arguments
 * (`fallback`, _door.py), which holds the rules and the error messages: an argument the door does
 * not take as it is (no str, a method the package has not made yet, a lone surrogate), a route
 * whose head is unknown or which has data, an error, method not allowed, long parameters, and any
 * call once the router is closed.
 */
#define Py_LIMITED_API 0x03090000
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "interlock.h"

typedef int64_t (*match_packed_fn)(ilk_router *router, const char *method, const char *uri,
                                   size_t uri_len, ilk_match *m);

typedef struct {
    PyObject_HEAD
    match_packed_fn match;
    ilk_router *router;
    ilk_match *handle;
    const char *buffer;     /* where the library writes the parameters (the slot's) */
    Py_ssize_t capacity;
    PyObject *heads;        /* dict: route id -> (id, name, pattern), the thread's (slot.routes) */
    PyObject *methods;      /* dict: method str -> bytes, the package's (_text._METHODS) */
    PyObject *match_type;   /* interlock.Match */
    newfunc tuple_tp_new;   /* tuple's own constructor, where the limited API gives it (3.10 on) */
    PyObject *tuple_new;    /* else tuple.__new__; either makes a Match from its fields */
    PyObject *last_method;  /* the method of the last call and its bytes: most calls repeat it */
    PyObject *last_method_bytes;
    PyObject *owner;        /* the slot: its match handle and buffer live while this door does */
    PyObject *router_ref;   /* a weak reference to the router, for `fallback` */
    PyObject *fallback;     /* fallback(router_ref, uri, method): the ctypes path's answer */
} Door;

static void *address(PyObject *value, const char *what) {
    void *p = PyLong_AsVoidPtr(value);
    if (p == NULL && !PyErr_Occurred())
        PyErr_Format(PyExc_ValueError, "Door: %s is NULL", what);
    return p;
}

/* Door(match_packed, router, handle, buffer, capacity, heads, methods, match_type, owner,
 * router_ref, fallback): the addresses as ints (ctypes'), the dicts, the Match type and the
 * functions the Python code uses. */
static PyObject *door_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *fn, *router, *handle, *buffer, *heads, *methods, *match_type, *owner, *router_ref, *fallback;
    Py_ssize_t capacity;
    if (kwargs != NULL && PyDict_Size(kwargs) != 0) {
        PyErr_SetString(PyExc_TypeError, "Door takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OOOOnO!O!OOOO", &fn, &router, &handle, &buffer, &capacity, &PyDict_Type, &heads,
                          &PyDict_Type, &methods, &match_type, &owner, &router_ref, &fallback))
        return NULL;
    Door *d = (Door *)PyType_GenericAlloc(type, 0);
    if (d == NULL)
        return NULL;
    d->match = (match_packed_fn)address(fn, "match_packed");
    d->router = address(router, "router");
    d->handle = address(handle, "handle");
    d->buffer = address(buffer, "buffer");
    d->capacity = capacity;
    Py_INCREF(heads);
    d->heads = heads;
    Py_INCREF(methods);
    d->methods = methods;
    Py_INCREF(match_type);
    d->match_type = match_type;
    Py_INCREF(owner);
    d->owner = owner;
    Py_INCREF(router_ref);
    d->router_ref = router_ref;
    Py_INCREF(fallback);
    d->fallback = fallback;
    d->tuple_tp_new = (newfunc)PyType_GetSlot(&PyTuple_Type, Py_tp_new);
    if (d->tuple_tp_new == NULL)
        PyErr_Clear();      /* 3.9: no slots of static types */
    d->tuple_new = PyObject_GetAttrString((PyObject *)&PyTuple_Type, "__new__");
    if (PyErr_Occurred() || d->tuple_new == NULL || capacity < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "Door: negative capacity");
        Py_DECREF(d);
        return NULL;
    }
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
    Py_XDECREF(d->router_ref);
    Py_XDECREF(d->fallback);
    freefunc free_fn = (freefunc)PyType_GetSlot(type, Py_tp_free);
    free_fn(self);
    Py_DECREF(type);
}

/* The packed parameters ("name\0value\0...", `size` bytes) as a dict; NULL with an error set. */
static PyObject *params_of(const char *p, Py_ssize_t size) {
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
        PyObject *k = PyUnicode_DecodeUTF8(p, name_end - p, NULL);
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

/* The ctypes path's answer to the call (or its error). */
static PyObject *fall_back(Door *d, PyObject *args, PyObject *kwargs) {
    if (PyErr_Occurred())
        PyErr_Clear();
    Py_ssize_t n = PyTuple_Size(args);
    PyObject *full = PyTuple_New(n + 1);
    if (full == NULL)
        return NULL;
    Py_INCREF(d->router_ref);
    PyTuple_SetItem(full, 0, d->router_ref);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyTuple_GetItem(args, i);
        Py_INCREF(item);
        PyTuple_SetItem(full, i + 1, item);
    }
    PyObject *answer = PyObject_Call(d->fallback, full, kwargs);
    Py_DECREF(full);
    return answer;
}

/* door(uri, method=None): Router.match (see the top of this file for what it answers itself). */
static PyObject *door_call(PyObject *self, PyObject *args, PyObject *kwargs) {
    Door *d = (Door *)self;
    Py_ssize_t n = PyTuple_Size(args);
    if (d->router == NULL || (kwargs != NULL && PyDict_Size(kwargs) != 0) || n < 1 || n > 2)
        return fall_back(d, args, kwargs);
    PyObject *uri = PyTuple_GetItem(args, 0), *method = n == 2 ? PyTuple_GetItem(args, 1) : Py_None;
    if (uri == NULL || method == NULL || !PyUnicode_Check(uri))
        return fall_back(d, args, kwargs);

    const char *method_text = NULL;       /* NULL: any method */
    if (method != Py_None) {
        if (!PyUnicode_Check(method))
            return fall_back(d, args, kwargs);
        if (method == d->last_method) {
            method_text = PyBytes_AsString(d->last_method_bytes);
        } else if (PyUnicode_GetLength(method) != 0) {
            /* Only the methods the package has made already (with its checks): others it makes. */
            PyObject *made = PyDict_GetItemWithError(d->methods, method);
            if (made == NULL || !PyBytes_Check(made))
                return fall_back(d, args, kwargs);
            Py_INCREF(method);
            Py_INCREF(made);
            Py_XDECREF(d->last_method);
            Py_XDECREF(d->last_method_bytes);
            d->last_method = method;
            d->last_method_bytes = made;
            method_text = PyBytes_AsString(made);
        }
    }

    PyObject *utf8 = PyUnicode_AsUTF8String(uri);   /* a lone surrogate: the Python code says where */
    if (utf8 == NULL)
        return fall_back(d, args, kwargs);
    char *text;
    Py_ssize_t length;
    if (PyBytes_AsStringAndSize(utf8, &text, &length) < 0) {
        Py_DECREF(utf8);
        return NULL;
    }
    int64_t rc = d->match(d->router, method_text, text, (size_t)length, d->handle);
    Py_DECREF(utf8);

    if (rc == ILK_NOT_FOUND)
        Py_RETURN_NONE;
    const int64_t matched = (int64_t)1 << 32;
    Py_ssize_t size = (Py_ssize_t)(rc & 0xFFFFFFFF);
    char packed[4096];
    if (rc < matched || size > d->capacity || size > (Py_ssize_t)sizeof packed)
        return fall_back(d, args, kwargs);
    /* Copied before anything is allocated: an allocation may run the garbage collector, and a
     * finalizer Python code, during which another thread may look up through this door. */
    memcpy(packed, d->buffer, (size_t)size);
    PyObject *id = PyLong_FromLongLong(rc >> 32);
    if (id == NULL)
        return NULL;
    PyObject *head = PyDict_GetItemWithError(d->heads, id);    /* borrowed */
    Py_DECREF(id);
    if (head == NULL || !PyTuple_Check(head) || PyTuple_Size(head) != 3)
        return fall_back(d, args, kwargs);
    PyObject *fields = PyTuple_New(4);
    if (fields == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < 3; i++) {
        PyObject *field = PyTuple_GetItem(head, i);
        Py_INCREF(field);
        PyTuple_SetItem(fields, i, field);
    }
    PyObject *params = params_of(packed, size);
    if (params == NULL) {
        Py_DECREF(fields);
        return NULL;
    }
    PyTuple_SetItem(fields, 3, params);
    PyObject *answer;
    if (d->tuple_tp_new != NULL) {
        PyObject *call_args = PyTuple_Pack(1, fields);
        answer = call_args ? d->tuple_tp_new((PyTypeObject *)d->match_type, call_args, NULL) : NULL;
        Py_XDECREF(call_args);
    } else {
        answer = PyObject_CallFunctionObjArgs(d->tuple_new, d->match_type, fields, NULL);
    }
    Py_DECREF(fields);
    return answer;
}

/* door.close(): the router is being freed; every call from now on is the ctypes path's (which
 * says the router is closed). */
static PyObject *door_close(PyObject *self, PyObject *unused) {
    (void)unused;
    ((Door *)self)->router = NULL;
    Py_RETURN_NONE;
}

static PyMethodDef door_methods[] = {
    {"close", door_close, METH_NOARGS, "Stops using the router: every call is the ctypes path's from now on."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot door_slots[] = {
    {Py_tp_new, door_new},
    {Py_tp_dealloc, door_dealloc},
    {Py_tp_call, door_call},
    {Py_tp_methods, door_methods},
    {Py_tp_doc, "Router.match through the compiled accelerator (see Router.match; interlock/_speedups.c)."},
    {0, NULL},
};

static PyType_Spec door_spec = {
    .name = "interlock._speedups.Door",
    .basicsize = sizeof(Door),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = door_slots,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "interlock._speedups",
    .m_doc = "Router.match's common answer in C over libinterlock (optional; see _speedups.c).",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__speedups(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    PyObject *door = PyType_FromSpec(&door_spec);
    if (door == NULL || PyModule_AddObject(m, "Door", door) < 0) {
        Py_XDECREF(door);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
