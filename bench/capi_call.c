/* The C API's cost per call, for bench/python_api.py to set the Python client's figures against: one seed's
 * value and gradient (dmci_value_gradient) and B lanes (dmci_lanes) of `(* alpha (* x x))`, each the best of 5
 * timed loops (CALLS seeds, or LANE_CALLS batches, default 50, per loop). Written in C, so it also shows that
 * dmci.h is a C header.
 *
 *   capi_call ROUTE ENGINE CALLS LANES [LANE_CALLS]   ->   {"route", "engine", "value_gradient_ns", "lanes",
 *                                                           "lanes_ms"}
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "capi/dmci.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int failed(int32_t status, char* error) {
  fprintf(stderr, "capi_call: %s (status %d)\n", error ? error : "?", (int)status);
  dmci_string_free(error);
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 5 && argc != 6) {
    fprintf(stderr, "usage: capi_call ROUTE ENGINE CALLS LANES [LANE_CALLS]\n");
    return 2;
  }
  dmci_options o = {0};
  o.route = argv[1];
  o.engine = argv[2];
  long calls = atol(argv[3]), lanes = atol(argv[4]), laneCalls = argc == 6 ? atol(argv[5]) : 50;
  if (calls < 1 || lanes < 1 || laneCalls < 1) return 2;
  dmci_program* p = NULL;
  char* error = NULL;
  int32_t s = dmci_open_text("(* alpha (* x x))", "alpha_x2.scm", &o, &p, &error);
  if (s) return failed(s, error);
  double params[2] = {1.5, 2.0}, value = 0, grad[2], best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    double t0 = now();
    for (long i = 0; i < calls; ++i)
      if ((s = dmci_value_gradient(p, params, &value, grad, &error))) return failed(s, error);
    double t = (now() - t0) / (double)calls;
    if (t < best) best = t;
  }
  double* in = malloc(sizeof(double) * 2 * (size_t)lanes);
  double* values = malloc(sizeof(double) * (size_t)lanes);
  double* grads = malloc(sizeof(double) * 2 * (size_t)lanes);
  if (!in || !values || !grads) return 1;
  for (long l = 0; l < lanes; ++l) in[2 * l] = 1.5, in[2 * l + 1] = -1.0 + 2.0 * (double)l / (double)lanes;
  if ((s = dmci_lanes(p, lanes, in, values, grads, &error))) return failed(s, error); /* warm: traces recorded */
  double bestLanes = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    double t0 = now();
    for (long i = 0; i < laneCalls; ++i)
      if ((s = dmci_lanes(p, lanes, in, values, grads, &error))) return failed(s, error);
    double t = (now() - t0) / (double)laneCalls;
    if (t < bestLanes) bestLanes = t;
  }
  printf("{\"route\": \"%s\", \"engine\": \"%s\", \"value_gradient_ns\": %.1f, \"lanes\": %ld, \"lanes_ms\": %.3f}\n",
         argv[1], argv[2], best * 1e9, lanes, bestLanes * 1e3);
  free(in), free(values), free(grads);
  dmci_free(p);
  return 0;
}
