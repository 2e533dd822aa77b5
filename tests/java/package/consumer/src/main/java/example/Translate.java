package example;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.softalign.Translator;
import org.softalign.TranslatorOptions;

/**
 * An application that depends on org.softalign:softalign through Maven, as a user's would: it
 * translates the lines of its standard input with the model given, at beam 4 with the settings of
 * tests/models/en-fr.int8.expected.tsv, one translation a line; a second argument names the kernel
 * set (the runtime's "kernels" option: ref, avx2, avx512, neon, neon_dot).
 */
public final class Translate {
  private Translate() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 1 || args.length > 2) {
      System.err.println("usage: java example.Translate MODEL [KERNELS] < lines");
      System.exit(2);
    }
    List<String> lines = new ArrayList<>();
    try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      for (String line; (line = in.readLine()) != null; ) lines.add(line);
    }
    TranslatorOptions.Builder options = TranslatorOptions.builder().beam(4).alpha(0.6f).beta(0f).maxLenA(1.5f).maxLenB(10);
    if (args.length == 2) options.kernels(args[1]);
    PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
    try (Translator translator = Translator.load(args[0], options.build())) {
      System.err.println("softalign " + Translator.version() + " on " + translator.backend());
      for (String translation : translator.translate(lines)) out.println(translation);
    }
  }
}
