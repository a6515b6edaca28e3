import java.io.BufferedReader;
import java.io.FileReader;
import java.io.PrintStream;
import java.util.Random;

import weka.classifiers.Classifier;
import weka.classifiers.Evaluation;
import weka.core.Attribute;
import weka.core.Instance;
import weka.core.Instances;

/**
 * Cross-validation as Weka 3.6's Experimenter runs it (CrossValidationResultProducer.doRun):
 * for each run seed s, a copy of the data, {@code randomize(new Random(s))}, {@code
 * stratify(k)}, then per fold {@code trainCV(k, f, random)} (which shuffles the training fold
 * with the same Random) and {@code testCV(k, f)}; each classifier is built on the training
 * fold and an Evaluation classifies the test fold's instances in order.
 *
 * <p>Usage: {@code java -cp weka.jar WekaCV.java DATA.arff K SEED[,SEED...] MODE LEARNERS}
 * with MODE {@code acc} (one line per run, fold and learner: "A seed fold learner n_train
 * n_test n_correct") or {@code trace} (also the fold's rows -- 0-based row numbers of the
 * ARFF file -- "T seed fold rows..." for the training fold in the order the classifiers see
 * it, "E seed fold rows..." for the test fold, and "P seed fold learner classes..." for the
 * predicted class indices, -1 for none).  LEARNERS: comma-separated of wnb, j48, ib1.  Rows
 * are tracked through an extra numeric attribute appended to a copy of the data and deleted
 * before training (randomize and stratify draw nothing per attribute).  SEED may also be a
 * range FIRST-LAST.
 */
public class WekaCV {
  static Classifier make(String name) throws Exception {
    switch (name) {
      case "wnb":
        return new weka.classifiers.bayes.NaiveBayes();
      case "ib1":
        return new weka.classifiers.lazy.IB1();
      case "j48": {
        weka.classifiers.trees.J48 t = new weka.classifiers.trees.J48();
        t.setOptions(new String[] {"-C", "0.25", "-M", "2"});
        return t;
      }
      default:
        throw new IllegalArgumentException("unknown learner " + name);
    }
  }

  static String rows(Instances d, int att) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < d.numInstances(); i++) {
      b.append(' ').append((int) d.instance(i).value(att));
    }
    return b.toString();
  }

  public static void main(String[] a) throws Exception {
    PrintStream out = new PrintStream(new java.io.BufferedOutputStream(System.out, 1 << 16));
    Instances data = new Instances(new BufferedReader(new FileReader(a[0])));
    data.setClassIndex(data.numAttributes() - 1);
    int k = Integer.parseInt(a[1]);
    java.util.List<Long> seeds = new java.util.ArrayList<>();
    for (String s : a[2].split(",")) {
      if (s.contains("-")) {
        String[] r = s.split("-");
        for (long v = Long.parseLong(r[0]); v <= Long.parseLong(r[1]); v++) seeds.add(v);
      } else {
        seeds.add(Long.parseLong(s));
      }
    }
    boolean trace = a[3].equals("trace");
    String[] names = a[4].split(",");
    Instances d = new Instances(data);
    int rowAtt = d.numAttributes();
    d.insertAttributeAt(new Attribute("__row"), rowAtt);
    for (int i = 0; i < d.numInstances(); i++) d.instance(i).setValue(rowAtt, i);
    for (long seed : seeds) {
      Instances run = new Instances(d);
      Random random = new Random(seed);
      run.randomize(random);
      if (run.classAttribute().isNominal()) run.stratify(k);
      for (int f = 0; f < k; f++) {
        Instances train = run.trainCV(k, f, random);
        Instances test = run.testCV(k, f);
        if (trace) {
          out.println("T " + seed + " " + f + rows(train, rowAtt));
          out.println("E " + seed + " " + f + rows(test, rowAtt));
        }
        train.deleteAttributeAt(rowAtt);
        test.deleteAttributeAt(rowAtt);
        for (String name : names) {
          Classifier c = make(name);
          c.buildClassifier(train);
          // what ClassifierSplitEvaluator.getResult does: one Evaluation over the test fold
          Evaluation eval = new Evaluation(train);
          double[] pred = eval.evaluateModel(c, test);
          StringBuilder p = new StringBuilder();
          for (double v : pred) p.append(' ').append(Instance.isMissingValue(v) ? -1 : (int) v);
          out.println("A " + seed + " " + f + " " + name + " " + train.numInstances() + " "
              + test.numInstances() + " " + (long) eval.correct());
          if (trace) out.println("P " + seed + " " + f + " " + name + p);
        }
      }
    }
    out.flush();
  }
}
