/* Uses the installed C API: f = x * 2 + 1 over three items. */
#include <stdio.h>

#include "calcjit/calcjit.h"

int main(void) {
  static const char text[] = "input x; f = x * 2 + 1;";
  calcjit_set* set = NULL;
  calcjit_engine* engine = NULL;
  calcjit_session* session = NULL;
  const float x[3] = {1, 2, 3};
  const float* f = NULL;
  size_t count = 0;
  if (calcjit_set_parse(text, sizeof text - 1, CALCJIT_FORMAT_TEXT, &set) != CALCJIT_OK ||
      calcjit_engine_create(set, NULL, &engine) != CALCJIT_OK ||
      calcjit_session_create(engine, &session) != CALCJIT_OK ||
      calcjit_session_bind_input(session, "x", x, 3) != CALCJIT_OK ||
      calcjit_session_evaluate(session, 3, NULL) != CALCJIT_OK ||
      calcjit_session_output(session, "f", &f, &count) != CALCJIT_OK) {
    fprintf(stderr, "%s\n", calcjit_last_error());
    return 1;
  }
  printf("%g %g %g\n", f[0], f[1], f[2]);
  calcjit_session_free(session);
  calcjit_engine_free(engine);
  calcjit_set_free(set);
  return 0;
}
