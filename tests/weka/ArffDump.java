import java.io.PrintStream;
import weka.core.Attribute;
import weka.core.Instance;
import weka.core.Instances;
import weka.core.converters.ConverterUtils.DataSource;

/** An ARFF file as Weka reads it: one line per attribute (A, name, kind, declared values)
 *  and one per instance (I, values: nominal as the value's name, numeric as the double's
 *  raw bits in hex, ? for missing); fields tab-separated, backslash-escaped. */
public class ArffDump {
  static String esc(String s) {
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n");
  }

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, false, "UTF-8");
    for (String path : args) {
      Instances d = DataSource.read(path);
      StringBuilder b = new StringBuilder();
      b.append("F\t").append(esc(path)).append('\n');
      for (int j = 0; j < d.numAttributes(); j++) {
        Attribute a = d.attribute(j);
        b.append("A\t").append(esc(a.name())).append('\t');
        if (a.isNominal()) {
          b.append("nominal");
          for (int v = 0; v < a.numValues(); v++) b.append('\t').append(esc(a.value(v)));
        } else {
          b.append(a.isNumeric() ? "numeric" : "other");
        }
        b.append('\n');
      }
      for (int i = 0; i < d.numInstances(); i++) {
        Instance in = d.instance(i);
        b.append('I');
        for (int j = 0; j < d.numAttributes(); j++) {
          b.append('\t');
          if (in.isMissing(j)) b.append('?');
          else if (d.attribute(j).isNominal()) b.append(esc(d.attribute(j).value((int) in.value(j))));
          else b.append(Long.toHexString(Double.doubleToRawLongBits(in.value(j))));
        }
        b.append('\n');
      }
      out.print(b);
    }
    out.flush();
  }
}
