package org.softalign;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Finds and loads {@code libsoftalign_jni.so}, in this order:
 *
 * <ol>
 *   <li>the absolute path in the system property {@code softalign.library.path};
 *   <li>on Android, {@link System#loadLibrary} (the app's {@code jniLibs/<abi>/}): the natives in
 *       the jar are built for glibc, not Android's bionic;
 *   <li>the jar's own copy for this platform, {@code /org/softalign/native/<os>-<arch>/} (the Java
 *       package carries {@code linux-x86_64} and {@code linux-aarch64}), extracted to a fresh
 *       temporary folder and deleted when the JVM exits;
 *   <li>{@link System#loadLibrary} ({@code -Djava.library.path}).
 * </ol>
 *
 * <p>If none loads, the {@link UnsatisfiedLinkError} names what was tried.
 */
final class NativeLoader {
  static final String LIBRARY = "softalign_jni";

  private NativeLoader() {}

  static void load() {
    String path = System.getProperty("softalign.library.path");
    if (path != null && !path.isEmpty()) {
      System.load(path);
      return;
    }
    if (isAndroid()) {
      System.loadLibrary(LIBRARY);
      return;
    }
    String platform = platform();
    String resource = "/org/softalign/native/" + platform + "/" + System.mapLibraryName(LIBRARY);
    String fromJar;
    try (InputStream in = NativeLoader.class.getResourceAsStream(resource)) {
      if (in != null) {
        System.load(extract(in).getAbsolutePath());
        return;
      }
      fromJar = "the jar has no " + resource;
    } catch (IOException e) {
      fromJar = "extracting " + resource + " failed: " + e;
    }
    try {
      System.loadLibrary(LIBRARY);
    } catch (UnsatisfiedLinkError e) {
      UnsatisfiedLinkError error = new UnsatisfiedLinkError("softalign: no native library for " + platform
          + " (" + fromJar + "; System.loadLibrary(\"" + LIBRARY + "\"): " + e.getMessage()
          + "); set -Dsoftalign.library.path=/absolute/path/" + System.mapLibraryName(LIBRARY));
      error.initCause(e);
      throw error;
    }
  }

  /** {@code linux-x86_64}, {@code linux-aarch64}: the folder of this platform's library in the jar. */
  static String platform() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    if (os.startsWith("linux")) os = "linux";
    else if (os.startsWith("mac")) os = "macos";
    else if (os.startsWith("windows")) os = "windows";
    if (arch.equals("amd64") || arch.equals("x86-64")) arch = "x86_64";
    else if (arch.equals("arm64")) arch = "aarch64";
    return os + "-" + arch;
  }

  private static boolean isAndroid() {
    return System.getProperty("java.vm.vendor", "").contains("Android")
        || System.getProperty("java.vm.name", "").equals("Dalvik");
  }

  /** Copies the library to a temporary folder of its own (no other process can swap the file). */
  private static File extract(InputStream in) throws IOException {
    File dir = Files.createTempDirectory("softalign-jni").toFile();
    File file = new File(dir, System.mapLibraryName(LIBRARY));
    dir.deleteOnExit();  // deleted in reverse order: the file first, then its folder
    file.deleteOnExit();
    Files.copy(in, file.toPath(), StandardCopyOption.REPLACE_EXISTING);
    return file;
  }
}
