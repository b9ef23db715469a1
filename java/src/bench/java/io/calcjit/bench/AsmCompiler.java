package io.calcjit.bench;

import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.commons.GeneratorAdapter;
import org.objectweb.asm.commons.Method;

/**
 * The ASM-compiled JVM design, the system calcjit replaces: a feature set's
 * formulas compiled to JVM bytecode with ASM (Debian's libasm-java), one
 * hidden class per set, which HotSpot then compiles to machine code. Used only
 * by the benchmark harness and its check, as a yardstick; the calcjit jar does
 * not depend on ASM.
 *
 * <p>The generated method is {@code evaluate(float[][] inputs, float[][]
 * outputs, int n)}: one loop over the items; in its body, every input the set
 * reads is loaded into a local, and every feature, in dependency order, is a
 * straight-line expression over locals whose value is kept in a local (for the
 * features that use it) and stored to its output column. The tree compiled is
 * the one {@link JavaInterpreter} builds from the set's proto3 JSON form (one
 * parser for both).
 *
 * <p>Semantics follow the contract except where the JVM design never did:
 * EXP, LOG, LOG1P, TANH and SQRT call {@code java.lang.Math} in double (not
 * StrictMath: the seed design took the fast, HotSpot-intrinsified methods) and
 * round to float; SIGMOID is {@code 1 / (1 + Math.exp(-x))} in double; POW is
 * {@link JavaInterpreter#pow}. So these are <b>not correctly rounded</b>: almost
 * always the same float as calcjit, sometimes one ulp away (AsmCompilerCheck
 * and JavaBench measure how far). Everything else is exact IEEE float32
 * arithmetic, bit-identical to calcjit: + - * / (the JVM's float arithmetic is
 * strict), MIN and MAX ({@code Math.min}/{@code max}: NaN if either is NaN, -0
 * below +0), comparisons (false with NaN, except !=), truthiness (non-zero and
 * not NaN), FLOOR, CEIL, ROUND, SIGN, NOT, IS_NAN, the nary folds in operand
 * order. {@code if}, {@code &&} and {@code ||} branch and compute only the
 * side they need, where the contract computes both: the same values, since no
 * expression has a side effect. Vector operators and batch aggregates are not
 * part of the per-item design: compiling them throws.
 *
 * <p>Code generation recurses over each expression tree (bench code, as the
 * recursive interpreter it reads the tree of): a formula nested thousands of
 * levels deep would overflow the Java stack or the JVM's 64 KB method limit,
 * and both are reported as exceptions.
 */
final class AsmCompiler {
  /** What the generated class implements; public for the hidden class. */
  public interface Kernel {
    /**
     * Evaluates every feature for items [0, n): outputs[k][i] is feature k of
     * item i. inputs[j] is input j's column (n floats) or, for a query input,
     * an array whose first float is the value.
     */
    void evaluate(float[][] inputs, float[][] outputs, int n);
  }

  private static final String CLASS_NAME = "io/calcjit/bench/AsmFeatureSet";
  private static final Type MATH = Type.getType(Math.class);
  private static final Type INTERPRETER = Type.getType(JavaInterpreter.class);
  private static final Type COMPILER = Type.getType(AsmCompiler.class);
  private static final Method UNARY_DOUBLE = Method.getMethod("double f(double)");

  private final JavaInterpreter set;
  private final List<JavaInterpreter.Input> inputs;
  private final int features;
  private GeneratorAdapter code;
  private int item;          // the loop counter's local
  private int scratch;       // a float local, for a truthiness test
  private int[] inputValue;  // the local holding input j's value for this item, or -1
  private int[] featureValue;  // the local holding feature k's value for this item

  private AsmCompiler(JavaInterpreter set) {
    this.set = set;
    this.inputs = set.inputs();
    this.features = set.outputs().size();
  }

  /** Compiles a set (its JSON form read by JavaInterpreter) into a new class. */
  static CompiledSet compile(JavaInterpreter set) {
    AsmCompiler compiler = new AsmCompiler(set);
    byte[] bytes = compiler.generate();
    try {
      Class<?> generated = MethodHandles.lookup().defineHiddenClass(bytes, true).lookupClass();
      Kernel kernel = (Kernel) generated.getDeclaredConstructor().newInstance();
      return new CompiledSet(kernel, set.outputs(), compiler.inputs, bytes.length);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("the generated class does not load", e);
    }
  }

  /** ROUND for the generated code: half away from zero, as C's roundf (exact in double). */
  public static float round(float x) {
    return (float) Math.copySign(Math.floor(Math.abs((double) x) + 0.5), x);
  }

  // ---------------------------------------------------------------------------
  // The class and its loop

  private byte[] generate() {
    int[] order = dependencyOrder();
    // Every frame merge of this code is of identical types (float[], float[][]),
    // so the common superclass is never looked up through a class loader.
    ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_FRAMES) {
      @Override
      protected String getCommonSuperClass(String a, String b) {
        return "java/lang/Object";
      }
    };
    writer.visit(Opcodes.V17, Opcodes.ACC_PUBLIC | Opcodes.ACC_FINAL | Opcodes.ACC_SUPER,
        CLASS_NAME, null, "java/lang/Object", new String[] {Type.getInternalName(Kernel.class)});
    GeneratorAdapter init = new GeneratorAdapter(Opcodes.ACC_PUBLIC,
        Method.getMethod("void <init>()"), null, null, writer);
    init.visitCode();
    init.loadThis();
    init.invokeConstructor(Type.getType(Object.class), Method.getMethod("void <init>()"));
    init.returnValue();
    init.endMethod();

    code = new GeneratorAdapter(Opcodes.ACC_PUBLIC,
        Method.getMethod("void evaluate(float[][], float[][], int)"), null, null, writer);
    code.visitCode();
    boolean[] used = usedInputs();
    int[] column = new int[inputs.size()];
    inputValue = new int[inputs.size()];
    Arrays.fill(inputValue, -1);
    for (int j = 0; j < inputs.size(); ++j) {
      if (!used[j]) continue;
      JavaInterpreter.Input input = inputs.get(j);
      if (input.dimension != 0) {
        throw new IllegalArgumentException("input " + input.name
            + ": vector inputs are not part of the per-item JVM design");
      }
      code.loadArg(0);
      code.push(j);
      code.arrayLoad(Type.getType(float[].class));
      if (input.query) {  // one value for the whole batch, loaded once
        code.push(0);
        code.arrayLoad(Type.FLOAT_TYPE);
        inputValue[j] = code.newLocal(Type.FLOAT_TYPE);
        code.storeLocal(inputValue[j]);
      } else {
        column[j] = code.newLocal(Type.getType(float[].class));
        code.storeLocal(column[j]);
        inputValue[j] = code.newLocal(Type.FLOAT_TYPE);
      }
    }
    int[] outputColumn = new int[features];
    featureValue = new int[features];
    for (int k = 0; k < features; ++k) {
      code.loadArg(1);
      code.push(k);
      code.arrayLoad(Type.getType(float[].class));
      outputColumn[k] = code.newLocal(Type.getType(float[].class));
      code.storeLocal(outputColumn[k]);
      featureValue[k] = code.newLocal(Type.FLOAT_TYPE);
    }
    scratch = code.newLocal(Type.FLOAT_TYPE);
    item = code.newLocal(Type.INT_TYPE);
    code.push(0);
    code.storeLocal(item);
    Label loop = code.mark();
    Label done = new Label();
    code.loadLocal(item);
    code.loadArg(2);
    code.ifICmp(GeneratorAdapter.GE, done);
    for (int j = 0; j < inputs.size(); ++j) {
      if (!used[j] || inputs.get(j).query) continue;
      code.loadLocal(column[j]);
      code.loadLocal(item);
      code.arrayLoad(Type.FLOAT_TYPE);
      code.storeLocal(inputValue[j]);
    }
    for (int k : order) {
      value(set.root(k));
      code.storeLocal(featureValue[k]);
      code.loadLocal(outputColumn[k]);
      code.loadLocal(item);
      code.loadLocal(featureValue[k]);
      code.arrayStore(Type.FLOAT_TYPE);
    }
    code.iinc(item, 1);
    code.goTo(loop);
    code.mark(done);
    code.returnValue();
    code.endMethod();
    writer.visitEnd();
    return writer.toByteArray();
  }

  /** The features in an order where each comes after those it references. */
  private int[] dependencyOrder() {
    List<Integer> order = new ArrayList<>();
    int[] state = new int[features];  // 0 new, 1 being visited, 2 placed
    for (int k = 0; k < features; ++k) place(k, state, order);
    return order.stream().mapToInt(Integer::intValue).toArray();
  }

  private void place(int k, int[] state, List<Integer> order) {
    if (state[k] == 2) return;
    if (state[k] == 1) {
      throw new IllegalArgumentException("feature " + set.outputs().get(k) + " depends on itself");
    }
    state[k] = 1;
    List<JavaInterpreter.Node> pending = new ArrayList<>(List.of(set.root(k)));
    while (!pending.isEmpty()) {
      JavaInterpreter.Node node = pending.remove(pending.size() - 1);
      if (node instanceof JavaInterpreter.FeatureRef ref) place(ref.index, state, order);
      pending.addAll(children(node));
    }
    state[k] = 2;
    order.add(k);
  }

  private boolean[] usedInputs() {
    boolean[] used = new boolean[inputs.size()];
    List<JavaInterpreter.Node> pending = new ArrayList<>();
    for (int k = 0; k < features; ++k) pending.add(set.root(k));
    while (!pending.isEmpty()) {
      JavaInterpreter.Node node = pending.remove(pending.size() - 1);
      if (node instanceof JavaInterpreter.InputRef ref) used[inputs.indexOf(ref.input)] = true;
      pending.addAll(children(node));
    }
    return used;
  }

  private static List<JavaInterpreter.Node> children(JavaInterpreter.Node node) {
    if (node instanceof JavaInterpreter.Unary u) return List.of(u.operand);
    if (node instanceof JavaInterpreter.Binary b) return List.of(b.lhs, b.rhs);
    if (node instanceof JavaInterpreter.Conditional c) {
      return List.of(c.condition, c.then, c.otherwise);
    }
    if (node instanceof JavaInterpreter.Nary n) return List.of(n.operands);
    if (node instanceof JavaInterpreter.Aggregate a) return List.of(a.operand);
    return List.of();
  }

  // ---------------------------------------------------------------------------
  // Expressions: each pushes one float

  private void value(JavaInterpreter.Node node) {
    if (node instanceof JavaInterpreter.Constant c) {
      code.push(c.value);
    } else if (node instanceof JavaInterpreter.FeatureRef ref) {
      code.loadLocal(featureValue[ref.index]);
    } else if (node instanceof JavaInterpreter.InputRef ref) {
      code.loadLocal(inputValue[inputs.indexOf(ref.input)]);
    } else if (node instanceof JavaInterpreter.Unary u) {
      unary(u);
    } else if (node instanceof JavaInterpreter.Binary b) {
      binary(b);
    } else if (node instanceof JavaInterpreter.Conditional c) {
      Label otherwise = new Label();
      Label end = new Label();
      branch(c.condition, otherwise, false);
      value(c.then);
      code.goTo(end);
      code.mark(otherwise);
      value(c.otherwise);
      code.mark(end);
    } else if (node instanceof JavaInterpreter.Nary n) {
      nary(n);
    } else if (node instanceof JavaInterpreter.Aggregate a) {
      throw new IllegalArgumentException("batch aggregate " + JavaInterpreter.AGGREGATE[a.op]
          + ": not part of the per-item JVM design");
    } else if (node instanceof JavaInterpreter.VectorOp v) {
      throw new IllegalArgumentException("vector operator " + JavaInterpreter.VECTOR[v.op]
          + ": not part of the per-item JVM design");
    } else {
      throw new IllegalArgumentException("unknown node " + node.getClass().getSimpleName());
    }
  }

  private void unary(JavaInterpreter.Unary u) {
    String op = JavaInterpreter.UNARY[u.op];
    if (op.equals("NOT") || op.equals("IS_NAN")) {
      truthValue(u);
      return;
    }
    value(u.operand);
    switch (op) {
      case "NEG" -> code.math(GeneratorAdapter.NEG, Type.FLOAT_TYPE);
      case "ABS" -> code.invokeStatic(MATH, Method.getMethod("float abs(float)"));
      case "EXP" -> inDouble("exp");
      case "LOG" -> inDouble("log");
      case "LOG1P" -> inDouble("log1p");
      case "TANH" -> inDouble("tanh");
      case "SQRT" -> inDouble("sqrt");  // correctly rounded twice, exact as a float sqrt
      case "FLOOR" -> inDouble("floor");
      case "CEIL" -> inDouble("ceil");
      case "SIGMOID" -> {  // 1 / (1 + exp(-x)) in double
        code.cast(Type.FLOAT_TYPE, Type.DOUBLE_TYPE);
        code.math(GeneratorAdapter.NEG, Type.DOUBLE_TYPE);
        code.invokeStatic(MATH, new Method("exp", UNARY_DOUBLE.getDescriptor()));
        code.push(1.0);
        code.math(GeneratorAdapter.ADD, Type.DOUBLE_TYPE);
        code.push(1.0);
        code.swap(Type.DOUBLE_TYPE, Type.DOUBLE_TYPE);
        code.math(GeneratorAdapter.DIV, Type.DOUBLE_TYPE);
        code.cast(Type.DOUBLE_TYPE, Type.FLOAT_TYPE);
      }
      case "ROUND" -> code.invokeStatic(COMPILER, Method.getMethod("float round(float)"));
      case "SIGN" -> sign();
      default -> throw new IllegalArgumentException("unary operator " + op + " not compiled");
    }
  }

  /** java.lang.Math.NAME(double) on the float on the stack, rounded back to float. */
  private void inDouble(String name) {
    code.cast(Type.FLOAT_TYPE, Type.DOUBLE_TYPE);
    code.invokeStatic(MATH, new Method(name, UNARY_DOUBLE.getDescriptor()));
    code.cast(Type.DOUBLE_TYPE, Type.FLOAT_TYPE);
  }

  /** 1 if x > 0, -1 if x < 0, else x (±0 and NaN pass through). */
  private void sign() {
    Label notPositive = new Label();
    Label notNegative = new Label();
    Label end = new Label();
    code.storeLocal(scratch);
    code.loadLocal(scratch);
    code.push(0f);
    code.visitInsn(Opcodes.FCMPL);  // NaN: -1, not > 0
    code.visitJumpInsn(Opcodes.IFLE, notPositive);
    code.push(1f);
    code.goTo(end);
    code.mark(notPositive);
    code.loadLocal(scratch);
    code.push(0f);
    code.visitInsn(Opcodes.FCMPG);  // NaN: 1, not < 0
    code.visitJumpInsn(Opcodes.IFGE, notNegative);
    code.push(-1f);
    code.goTo(end);
    code.mark(notNegative);
    code.loadLocal(scratch);
    code.mark(end);
  }

  private void binary(JavaInterpreter.Binary b) {
    String op = JavaInterpreter.BINARY[b.op];
    switch (op) {
      case "EQ", "NE", "LT", "LE", "GT", "GE", "AND", "OR" -> {
        truthValue(b);
        return;
      }
      default -> {}
    }
    value(b.lhs);
    value(b.rhs);
    switch (op) {
      case "SUM" -> code.math(GeneratorAdapter.ADD, Type.FLOAT_TYPE);
      case "SUB" -> code.math(GeneratorAdapter.SUB, Type.FLOAT_TYPE);
      case "MUL" -> code.math(GeneratorAdapter.MUL, Type.FLOAT_TYPE);
      case "DIV" -> code.math(GeneratorAdapter.DIV, Type.FLOAT_TYPE);
      case "POW" -> code.invokeStatic(INTERPRETER, Method.getMethod("float pow(float, float)"));
      case "MIN" -> code.invokeStatic(MATH, Method.getMethod("float min(float, float)"));
      case "MAX" -> code.invokeStatic(MATH, Method.getMethod("float max(float, float)"));
      default -> throw new IllegalArgumentException("binary operator " + op + " not compiled");
    }
  }

  private void nary(JavaInterpreter.Nary n) {
    String op = JavaInterpreter.NARY[n.op];
    boolean weighted = op.equals("WEIGHTED_SUM");
    for (int k = 0; k < n.operands.length; ++k) {
      if (weighted) code.push(n.weights[k]);
      value(n.operands[k]);
      if (weighted) code.math(GeneratorAdapter.MUL, Type.FLOAT_TYPE);
      if (k == 0) continue;
      switch (op) {
        case "SUM", "MEAN", "WEIGHTED_SUM" -> code.math(GeneratorAdapter.ADD, Type.FLOAT_TYPE);
        case "PRODUCT" -> code.math(GeneratorAdapter.MUL, Type.FLOAT_TYPE);
        case "MIN" -> code.invokeStatic(MATH, Method.getMethod("float min(float, float)"));
        case "MAX" -> code.invokeStatic(MATH, Method.getMethod("float max(float, float)"));
        default -> throw new IllegalArgumentException("nary operator " + op + " not compiled");
      }
    }
    if (op.equals("MEAN")) {  // one float division by the operand count
      code.push((float) n.operands.length);
      code.math(GeneratorAdapter.DIV, Type.FLOAT_TYPE);
    }
  }

  // ---------------------------------------------------------------------------
  // Conditions: comparisons, &&, ||, !, is_nan and truthiness as jumps

  /** A condition as a value: 1 or 0. */
  private void truthValue(JavaInterpreter.Node node) {
    Label no = new Label();
    Label end = new Label();
    branch(node, no, false);
    code.push(1f);
    code.goTo(end);
    code.mark(no);
    code.push(0f);
    code.mark(end);
  }

  /** Jumps to target when the node's truthiness is `when`; falls through otherwise. */
  private void branch(JavaInterpreter.Node node, Label target, boolean when) {
    if (node instanceof JavaInterpreter.Binary b) {
      String op = JavaInterpreter.BINARY[b.op];
      switch (op) {
        case "AND", "OR" -> {
          // AND jumps on false as soon as one side is false; OR on true.
          boolean decisive = op.equals("OR");
          if (when == decisive) {
            branch(b.lhs, target, when);
            branch(b.rhs, target, when);
          } else {
            Label decided = new Label();
            branch(b.lhs, decided, decisive);
            branch(b.rhs, target, when);
            code.mark(decided);
          }
          return;
        }
        case "EQ", "NE", "LT", "LE", "GT", "GE" -> {
          value(b.lhs);
          value(b.rhs);
          compareAndJump(op, target, when);
          return;
        }
        default -> {}
      }
    }
    if (node instanceof JavaInterpreter.Unary u) {
      String op = JavaInterpreter.UNARY[u.op];
      if (op.equals("NOT")) {
        branch(u.operand, target, !when);
        return;
      }
      if (op.equals("IS_NAN")) {  // x != x
        value(u.operand);
        code.dup();
        code.visitInsn(Opcodes.FCMPL);
        code.visitJumpInsn(when ? Opcodes.IFNE : Opcodes.IFEQ, target);
        return;
      }
    }
    // Any other value: truthy when non-zero and not NaN.
    value(node);
    code.storeLocal(scratch);
    Label falsy = when ? new Label() : target;
    code.loadLocal(scratch);
    code.push(0f);
    code.visitInsn(Opcodes.FCMPL);  // NaN: -1, so not == 0
    code.visitJumpInsn(Opcodes.IFEQ, falsy);
    code.loadLocal(scratch);
    code.loadLocal(scratch);
    code.visitInsn(Opcodes.FCMPL);  // NaN: -1
    code.visitJumpInsn(Opcodes.IFNE, falsy);
    if (when) {
      code.goTo(target);
      code.mark(falsy);
    }
  }

  /**
   * The two floats on the stack compared as IEEE: every comparison with NaN is
   * false except NE. FCMPL gives -1 for NaN, FCMPG 1, chosen per operator so
   * that NaN lands on "false".
   */
  private void compareAndJump(String op, Label target, boolean when) {
    // {compare, jump if true, jump if false} per operator.
    int[] codes = switch (op) {
      case "EQ" -> new int[] {Opcodes.FCMPL, Opcodes.IFEQ, Opcodes.IFNE};
      case "NE" -> new int[] {Opcodes.FCMPL, Opcodes.IFNE, Opcodes.IFEQ};
      case "LT" -> new int[] {Opcodes.FCMPG, Opcodes.IFLT, Opcodes.IFGE};
      case "LE" -> new int[] {Opcodes.FCMPG, Opcodes.IFLE, Opcodes.IFGT};
      case "GT" -> new int[] {Opcodes.FCMPL, Opcodes.IFGT, Opcodes.IFLE};
      default -> new int[] {Opcodes.FCMPL, Opcodes.IFGE, Opcodes.IFLT};
    };
    code.visitInsn(codes[0]);
    code.visitJumpInsn(when ? codes[1] : codes[2], target);
  }

  // ---------------------------------------------------------------------------
  // The compiled set

  /**
   * A compiled set with its bindings, used like JavaInterpreter: bind the
   * inputs, then evaluate n items. The output columns are reused from one
   * evaluation to the next of the same n (nothing is allocated per evaluation).
   */
  static final class CompiledSet {
    private final Kernel kernel;
    private final List<String> outputs;
    private final List<JavaInterpreter.Input> inputs;
    private final int classBytes;
    private final float[][] bound;
    private final float[][] arguments;
    private final float[][] defaults;  // per input with a default: its column for columnsFor
    private float[][] columns = new float[0][];
    private int columnsFor = -1;

    CompiledSet(Kernel kernel, List<String> outputs, List<JavaInterpreter.Input> inputs,
        int classBytes) {
      this.kernel = kernel;
      this.outputs = outputs;
      this.inputs = inputs;
      this.classBytes = classBytes;
      this.bound = new float[inputs.size()][];
      this.arguments = new float[inputs.size()][];
      this.defaults = new float[inputs.size()][];
    }

    List<String> outputs() {
      return outputs;
    }

    /** The size of the generated class file, in bytes. */
    int classBytes() {
      return classBytes;
    }

    /** Binds an input: n floats (item scalar) or 1 (query scalar). */
    void bind(String name, float[] data) {
      for (int j = 0; j < inputs.size(); ++j) {
        if (inputs.get(j).name.equals(name)) {
          bound[j] = data;
          return;
        }
      }
      throw new IllegalArgumentException("unknown input " + name);
    }

    /** Evaluates every feature for n items; column k is feature k (reused next time). */
    float[][] evaluate(int n) {
      if (n < 0) throw new IllegalArgumentException("negative item count " + n);
      if (n != columnsFor) {
        columns = new float[outputs.size()][n];
        Arrays.fill(defaults, null);
        columnsFor = n;
      }
      for (int j = 0; j < inputs.size(); ++j) {
        JavaInterpreter.Input input = inputs.get(j);
        int need = input.query ? 1 : n;
        if (bound[j] != null) {
          if (bound[j].length < need) {
            throw new IllegalArgumentException("input " + input.name + ": needs " + need
                + " floats, has " + bound[j].length);
          }
          arguments[j] = bound[j];
        } else if (input.hasDefault) {
          if (defaults[j] == null) defaults[j] = JavaInterpreter.filled(need, input.defaultValue);
          arguments[j] = defaults[j];
        } else if (input.dimension == 0) {
          throw new IllegalArgumentException("input " + input.name + " is not bound");
        } else {
          arguments[j] = null;  // a vector input: no compiled set reads one
        }
      }
      kernel.evaluate(arguments, columns, n);
      return columns;
    }
  }
}
