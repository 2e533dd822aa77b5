/* A qemu-user TCG plugin: counts the guest instructions a program executes
 * and prints the total on stderr at exit ("insns: N"). Used by
 * scripts/arm/insn_per_step.sh for the instruction count per decode step of
 * each kernel set under qemu (the step time cannot be measured there).
 *
 * Debian ships qemu-user with plugin support (-plugin) but not the plugin
 * header, so the few entry points used here are declared by hand, as the
 * plugin API version 1 (qemu 7.x) defines them. Build:
 *   gcc -shared -fPIC -O2 -o build-aarch64/qemu_insn_count.so scripts/arm/qemu_insn_count.c
 * Run: qemu-aarch64 -plugin build-aarch64/qemu_insn_count.so -L SYSROOT PROGRAM ... */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 = 0 };
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb* tb);
typedef void (*atexit_cb)(qemu_plugin_id_t id, void* userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb* tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb* tb, enum qemu_plugin_op op, void* ptr,
                                              uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, atexit_cb cb, void* userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* One counter for all threads: inline adds are not atomic, so a program with
 * several threads would be undercounted; the CLI runs here with --threads 1. */
static uint64_t insns;

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &insns, qemu_plugin_tb_n_insns(tb));
}

static void on_exit(qemu_plugin_id_t id, void* userdata) {
  (void)id;
  (void)userdata;
  fprintf(stderr, "insns: %" PRIu64 "\n", insns);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info,
                                                               int argc, char** argv) {
  (void)info;
  (void)argc;
  (void)argv;
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
  qemu_plugin_register_atexit_cb(id, on_exit, NULL);
  return 0;
}
