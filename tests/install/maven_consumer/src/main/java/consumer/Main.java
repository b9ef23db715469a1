package consumer;

import io.calcjit.Backend;
import io.calcjit.Engine;
import io.calcjit.EngineOptions;
import io.calcjit.FeatureSet;
import io.calcjit.Session;

/** Evaluates a small set with the calcjit jar Maven resolved; prints "3.0 5.0 7.0 VERSION". */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    try (FeatureSet set = FeatureSet.fromText("input x; f = x * 2 + 1;");
        Engine engine = Engine.create(set, EngineOptions.of(Backend.VM));
        Session session = engine.newSession()) {
      session.bindInput("x", new float[] {1, 2, 3});
      session.evaluate(3);
      float[] f = session.output("f");
      System.out.println(f[0] + " " + f[1] + " " + f[2] + " " + Engine.libraryVersion());
    }
  }
}
