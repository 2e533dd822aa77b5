/* translate: the smallest C program that uses softalign.
 *
 *   translate MODEL SENTENCE...
 *
 * Loads MODEL, translates each SENTENCE greedily and prints one line per
 * sentence. Exit status 0 on success, 1 with a message on stderr otherwise. */
#include <softalign/softalign.h>

#include <stdio.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL SENTENCE...\n", argv[0]);
    return 1;
  }

  softalign_model* model = NULL;
  if (softalign_model_load(argv[1], &model) != SOFTALIGN_OK) {
    fprintf(stderr, "error: %s\n", softalign_last_error());
    return 1;
  }

  softalign_translator_options options;
  softalign_translator_options_default(&options);
  options.beam = 1; /* greedy */
  options.nbest = 1;

  softalign_translator* translator = NULL;
  if (softalign_translator_create(model, &options, &translator) != SOFTALIGN_OK) {
    fprintf(stderr, "error: %s\n", softalign_last_error());
    softalign_model_free(model);
    return 1;
  }

  int status = 0;
  for (int i = 2; i < argc; ++i) {
    softalign_result* result = NULL;
    if (softalign_translate(translator, argv[i], &result) != SOFTALIGN_OK) {
      fprintf(stderr, "error: %s\n", softalign_last_error());
      status = 1;
      break;
    }
    printf("%s\n", softalign_result_text(result, 0));
    softalign_result_free(result);
  }

  softalign_translator_free(translator);
  softalign_model_free(model);
  return status;
}
