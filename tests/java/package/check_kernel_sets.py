"""The self-contained library's CPU features (tests/java/package/CMakeLists.txt).

The Java package's JNI library asks the cpuinfo stand-in (runtime/compat/cpuinfo) which kernel
sets the CPU runs. The consumer asks for each set by name; a set must load exactly where the CPU
has its instructions, as another source says: /proc/cpuinfo's flags on the host, the emulated CPU
under qemu (-cpu max has the dot product, cortex-a53 has not). A refused set must fail with the
runtime's message, not a crash.

    python3 check_kernel_sets.py CONSUMER_JAR JAR MODEL JAVA [--aarch64-java JAVA --sysroot DIR]
"""
import argparse
import subprocess
import sys


def host_sets():
    flags = set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    avx2 = {"avx2", "fma", "f16c"} <= flags
    avx512 = avx2 and {"avx512f", "avx512bw", "avx512vl", "avx512_vnni"} <= flags
    return {"ref": True, "avx2": avx2, "avx512": avx512}


def run(command, kernels, expect, label):
    done = subprocess.run(command + [kernels], input="A cow.\n", capture_output=True, text=True, timeout=600)
    ok = done.returncode == 0 and done.stdout.strip() != ""
    refused = done.returncode != 0 and "kernel" in done.stderr and "SoftalignException" in done.stderr
    if expect and ok:
        print(f"ok   {label}: {kernels} loads: {done.stdout.strip()}")
        return True
    if not expect and refused:
        print(f"ok   {label}: {kernels} refused: " + next(l for l in done.stderr.splitlines() if "kernel" in l).strip())
        return True
    print(f"FAIL {label}: {kernels} should {'load' if expect else 'be refused'}; exit {done.returncode}\n{done.stderr}")
    return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("consumer_jar")
    parser.add_argument("jar")
    parser.add_argument("model")
    parser.add_argument("java")
    parser.add_argument("--aarch64-java")
    parser.add_argument("--sysroot")
    args = parser.parse_args()
    classpath = ["-cp", f"{args.consumer_jar}:{args.jar}", "example.Translate", args.model]
    results = []
    for kernels, expect in host_sets().items():
        results.append(run([args.java] + classpath, kernels, expect, "host"))
    if args.aarch64_java:
        for cpu, sets in (("max", {"neon": True, "neon_dot": True}), ("cortex-a53", {"neon": True, "neon_dot": False})):
            qemu = ["qemu-aarch64", "-cpu", cpu, "-L", args.sysroot, args.aarch64_java]
            for kernels, expect in sets.items():
                results.append(run(qemu + classpath, kernels, expect, f"aarch64 -cpu {cpu}"))
    print(f"{sum(results)} passed, {len(results) - sum(results)} failed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
