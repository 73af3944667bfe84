/* dmci.h: DMCI's C API, the one header of libdmci.so.
 *
 * A program is opened once (read, expanded, linked and lowered by the asked route, prepared on the asked
 * engine) into an opaque handle, then evaluated as often as wanted: one seed (value and gradient into the
 * caller's buffers), or B lanes at once (params[B*p] in, values[B] and grads[B*p] out, row-major, lane after
 * lane), or fitted to data columns (the result as the JSON object `dmci fit --json` prints).
 *
 * Errors: every call that can fail returns a DMCI_* code and, when `error` is not NULL, stores a message
 * (malloc'd; free it with dmci_string_free) of the form "file:line:col: kind: message" where the error has a
 * place in the program. No C++ exception leaves the library.
 *
 * Threads: one handle may be used from many threads at once. The read and prepared program is shared and never
 * written after dmci_open_*; what one evaluation writes (the heap, the tape, the replay engine's trace cache)
 * belongs to a prepared run, and each call takes a run of its own from the handle's pool (a new one is prepared
 * when every run is busy), so concurrent calls never share one.
 *
 * The library links no LibTorch: the tensor engine and fit's optimizers are plugins, found in a folder of
 * $DMCI_ENGINE_PATH, beside libdmci.so, or in dmci/ beside it (an installed tree: PREFIX/lib/dmci). */
#ifndef DMCI_H
#define DMCI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The C API's version. Versions only add: a library of version v serves a client written for any version <= v.
 *   1: open, names, value_gradient, lanes, fit, free.
 *   2: wrt takes "literals" and "all" (the gradient then has an entry per literal after the parameters:
 *      dmci_gradient_count, dmci_gradient_name); dmci_fit's "data_name". */
#define DMCI_API_VERSION 2

enum dmci_status {
  DMCI_OK = 0,
  DMCI_ERR_USAGE = 1,   /* a bad argument: an unknown route or engine, a wrt name that is no parameter, a NULL */
  DMCI_ERR_PROGRAM = 2, /* the program: a syntax error, an unbound name, an error while it runs, a budget spent */
  DMCI_ERR_IO = 3,      /* a file that cannot be read */
  DMCI_ERR_INTERNAL = 4 /* a bug or an exhausted resource (out of memory) */
};

/* How to open a program. Zero-initialise it (or pass NULL) for the defaults; a NULL string is its default. */
typedef struct dmci_options {
  const char* route;  /* "direct", "dmci" (default), "dmci2", "lantern", "lantern-dmci" */
  const char* engine; /* "native", "replay" (default), "compiled", "tensor" */
  const char* wrt;    /* what to differentiate, comma-separated (as dmci grad --wrt): parameter names, "literals"
                        (every numeric literal), "all" (every parameter and literal); NULL or "": every parameter */
  uint64_t max_steps; /* budgets; 0: the tool's defaults */
  uint64_t max_heap;
  double max_seconds;
  int32_t threads; /* threads for a batch of lanes; 0: one per hardware thread */
} dmci_options;

typedef struct dmci_program dmci_program;

/* The library's version ("0.1.0") and the API version it was built with. */
const char* dmci_version(void);
int32_t dmci_api_version(void);

/* Opens a program from its text (`name` names it in error positions; NULL: "<text>") or from a file. On success
 * *out holds a handle to free with dmci_free. */
int32_t dmci_open_text(const char* text, const char* name, const dmci_options* options, dmci_program** out,
                       char** error);
int32_t dmci_open_file(const char* path, const dmci_options* options, dmci_program** out, char** error);

/* The parameters (the program's free variables, in the order of their first use): p of them. The names are
 * owned by the handle. */
int64_t dmci_param_count(const dmci_program* program);
const char* dmci_param_name(const dmci_program* program, int64_t i);

/* A gradient's entries: g of them, the p parameters in their order (0 for one not in wrt), then, when wrt names
 * "literals" or "all", the numeric literals by position in source order, each named "file:line:col" (as
 * dmci grad --json names them). Without literals g = p. The names are owned by the handle. */
int64_t dmci_gradient_count(const dmci_program* program);
const char* dmci_gradient_name(const dmci_program* program, int64_t i);

/* One seed: params[p] in; the value, and (grad not NULL) grad[g], the gradient by entry. */
int32_t dmci_value_gradient(dmci_program* program, const double* params, double* value, double* grad, char** error);

/* B lanes in one call: params[B*p] (lane b's parameters at params[b*p ...]) in, values[B] and (grads not NULL)
 * grads[B*g] (lane b's gradient at grads[b*g ...]) out, all read and written in place (the replay and compiled
 * engines copy nothing). The first failing lane's error is the call's, and the outputs are then unspecified. */
int32_t dmci_lanes(dmci_program* program, int64_t lanes, const double* params, double* values, double* grads,
                   char** error);

/* Fits the program to data: `columns` named columns of `rows` numbers each (column c at data[c][0 .. rows));
 * `target` names the column the program's value predicts (NULL: objective mode, the program's value is the
 * loss). `options_json` (NULL: "{}") holds dmci fit's settings by their option names: "optimizer", "steps",
 * "restarts", "seed", "lr", "loss", "wrt" (as --wrt), "bind" ({"name": start}) and "transform" (as --transform),
 * and "data_name", the data's name in error positions and the result (as --data names its file; default: the
 * columns' names); any other key is a usage error. On success *json_out is the object `dmci fit --json` prints (free it
 * with dmci_string_free); on a fit stopped by a NaN or infinite loss, it is still set, and the status is
 * DMCI_ERR_PROGRAM. */
int32_t dmci_fit(dmci_program* program, int64_t columns, const char* const* names, const double* const* data,
                 int64_t rows, const char* target, const char* options_json, char** json_out, char** error);

/* Frees a handle (NULL: nothing). No call may be using it. */
void dmci_free(dmci_program* program);
/* Frees a string the library returned (NULL: nothing). */
void dmci_string_free(char* s);

#ifdef __cplusplus
}
#endif

#endif /* DMCI_H */
