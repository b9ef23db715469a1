#!/usr/bin/env python3
"""The calcjit command line, driven as a user would (run by CTest).

Usage: cli_test.py PATH/TO/calcjit
"""
import os
import re
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest

CALCJIT = None


def f32(x):
    """x rounded to the nearest float32, as a Python float."""
    return struct.unpack('f', struct.pack('f', x))[0]


class Workdir:
    def __init__(self):
        self.tmp = tempfile.TemporaryDirectory()

    def __del__(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def write(self, name, data):
        mode = 'wb' if isinstance(data, bytes) else 'w'
        with open(self.path(name), mode, newline='' if mode == 'w' else None) as out:
            out.write(data)
        return self.path(name)

    def read(self, name):
        with open(self.path(name), newline='') as f:
            return f.read()


def run(*args):
    return subprocess.run([CALCJIT, *args], capture_output=True, text=True)


class CheckTest(unittest.TestCase):
    def setUp(self):
        self.dir = Workdir()

    def test_ok_set_lists_implicit_inputs(self):
        path = self.dir.write('s.calc', 'input price;\nscore = price * ratng + clicks;\n')
        result = run('check', path)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn('ratng', result.stdout)
        self.assertIn('clicks', result.stdout)
        self.assertIn('2 implicit inputs', result.stdout)

    def test_every_error_with_its_place(self):
        path = self.dir.write('s.calc', 'a = b;\nb = a;\nc = 1;\nc = 2;\n')
        result = run('check', path)
        self.assertEqual(result.returncode, 1)
        self.assertIn(path + ':4:1: error: ', result.stderr)
        self.assertIn("'c' is defined twice", result.stderr)
        self.assertIn("cycle: 'a' -> 'b' -> 'a'", result.stderr)

    def test_json_errors_have_field_paths(self):
        path = self.dir.write('s.json', '{"features": [{"name": "f", "expression": '
                              '{"binary": {"operator": "OPERATOR_DIV", "lhs": {"feature": "x"}}}}]}')
        result = run('check', path)
        self.assertEqual(result.returncode, 1)
        self.assertIn('features[0].expression.binary.rhs', result.stderr)

    def test_json_syntax_error_has_line_and_column(self):
        path = self.dir.write('s.json', '{"features": [\n  {"name": "f",, }]}')
        result = run('check', path)
        self.assertEqual(result.returncode, 1)
        self.assertIn(path + ':2:', result.stderr)

    def test_malformed_binary_names_a_byte_offset(self):
        path = self.dir.write('s.pb', b'\x12\xff\xff\xff\xff\x0f')
        result = run('check', path)
        self.assertEqual(result.returncode, 1)
        self.assertIn('byte', result.stderr)

    def test_unknown_extension_needs_input_format(self):
        path = self.dir.write('s.txt', 'f = x;\n')
        self.assertEqual(run('check', path).returncode, 1)
        self.assertEqual(run('check', path, '--input-format', 'calc').returncode, 0)

    def test_tiers_times_the_vm_and_the_jit(self):
        path = self.dir.write('s.calc', 'input x;\nf = log1p(abs(x)) * 2 + x / 3;\n')
        self.assertNotIn('tiers:', run('check', path).stdout)
        result = run('check', path, '--tiers', '--tier-items', '300')
        self.assertEqual(result.returncode, 0, result.stderr)
        match = re.search(r'tiers: vm ([\d.,]+) ns, jit ([\d.,]+) ns per item at 300 items '
                          r'\(jit/vm [\d.]+\): the (vm|jit) is faster', result.stdout)
        self.assertIsNotNone(match, result.stdout)
        vm, jit = (float(t.replace(',', '')) for t in match.group(1, 2))
        # The choice is made on the unrounded times: equal printed times may go either way.
        if jit != vm:
            self.assertEqual(match.group(3), 'jit' if jit < vm else 'vm')
        self.assertIn('served with tier choice (auto): the ' + match.group(3), result.stdout)
        dumped = run('dump', path, '--tiers')
        self.assertEqual(dumped.returncode, 0, dumped.stderr)
        self.assertIn('per item at 1,000 items', dumped.stdout)
        # Nothing for the JIT to compile: not timed.
        store = self.dir.write('store.calc', 'input x;\nf = x;\n')
        self.assertIn('not timed: no region to compile', run('dump', store, '--tiers').stdout)
        self.assertNotEqual(run('check', path, '--tiers', '--tier-items', '0').returncode, 0)


class PrintTest(unittest.TestCase):
    def test_round_trip_through_every_format(self):
        d = Workdir()
        text = ('input q: query = -1.5;\ninput v: item[3];\n'
                'f = -2 ^ 2 + (-2) ^ q * 0.1 + dot(v, v) + weighted_sum([0.5, -2], q, x);\n'
                '`odd name` = rank(f) / batch_count(!is_nan(f));\n')
        src = d.write('a.calc', text)
        self.assertEqual(run('print', src, '--format', 'json', '-o', d.path('a.json')).returncode, 0)
        self.assertEqual(run('print', d.path('a.json'), '--format', 'pb', '-o', d.path('a.pb')).returncode, 0)
        result = run('print', d.path('a.pb'))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, text)
        with open(d.path('a.json')) as f:
            self.assertIn('"OPERATOR_POW"', f.read())


class EvalTest(unittest.TestCase):
    def setUp(self):
        self.dir = Workdir()

    def eval(self, set_text, csv, *extra, ext='calc'):
        set_path = self.dir.write('set.' + ext, set_text)
        in_path = self.dir.write('in.csv', csv)
        out_path = self.dir.path('out.csv')
        if os.path.exists(out_path):
            os.remove(out_path)
        result = run('eval', set_path, '--input', in_path, '--output', out_path, *extra)
        output = self.dir.read('out.csv') if os.path.exists(out_path) else None
        return result, output

    def test_values_and_formatting(self):
        result, out = self.eval('y = x * 1;\nz = -x;\n',
                                'x\n1.5\n-0\n\nnan\n-INF\nInfinity\n0.1\n1e-45\n16777217\n')
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(out, 'y,z\n1.5,-1.5\n-0,0\nnan,nan\nnan,nan\n-inf,inf\ninf,-inf\n'
                              '0.100000001,-0.100000001\n1.40129846e-45,-1.40129846e-45\n'
                              '16777216,-16777216\n')

    def test_rfc4180_quotes_bom_crlf_and_keep(self):
        csv = ('\ufeffid,"na,me",x\r\n'
               '1,"a ""quoted"", name",2\r\n'
               '2,"multi\nline",  3  \r\n')
        result, out = self.eval('y = x + 1;\n', csv, '--keep', 'id')
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(out, 'id,y\n1,3\n2,4\n')

    def test_keep_columns_are_copied_and_quoted(self):
        result, out = self.eval('y = x;\n', 'name,x\n"a, b",1\n"say ""hi""",2\n', '--keep', 'name')
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(out, 'name,y\n"a, b",1\n"say ""hi""",2\n')

    def test_group_by_makes_one_batch_per_run(self):
        csv = 'q,x,u\na,1,10\na,3,20\nb,5,30\nb,7,40\na,9,50\n'
        result, out = self.eval('input u: query;\ns = batch_sum(x) + u;\nr = rank(x);\n', csv,
                                '--group-by', 'q', '--keep', 'q')
        self.assertEqual(result.returncode, 0, result.stderr)
        # Query inputs come from the first row of each batch; runs, not groups.
        self.assertEqual(out, 'q,s,r\na,14,2\na,14,1\nb,42,2\nb,42,1\na,59,1\n')

    def test_vector_columns_and_defaults(self):
        csv = 'v[0],v[1],w[0],w[1],x\n1,2,3,4,5\n2,0,1,1,6\n'
        result, out = self.eval('input v: item[2];\ninput w: query[2];\ninput d = 7;\n'
                                'f = dot(v, w) + d;\n', csv)
        self.assertEqual(result.returncode, 0, result.stderr)
        # w comes from the first row: (3, 4).
        self.assertEqual(out, 'f\n18\n13\n')

    def test_missing_vector_column_is_named(self):
        result, out = self.eval('input v: item[3];\nf = norm(v);\n', 'v[0],v[2]\n1,2\n')
        self.assertEqual(result.returncode, 1)
        self.assertIn("column 'v[1]' is missing", result.stderr)
        self.assertIsNone(out)

    def test_missing_input_without_default(self):
        result, out = self.eval('f = x + y;\n', 'x\n1\n')
        self.assertEqual(result.returncode, 1)
        self.assertIn("input 'y' has no column", result.stderr)
        self.assertIsNone(out)

    def test_bad_cell_names_row_and_column_and_leaves_no_file(self):
        result, out = self.eval('f = x;\n', 'x,unused\n1,zz\n2abc,zz\n')
        self.assertEqual(result.returncode, 1)
        self.assertIn("row 2 (line 3), column 'x'", result.stderr)
        self.assertIn("'2abc'", result.stderr)
        self.assertIsNone(out)
        self.assertEqual([n for n in os.listdir(self.dir.tmp.name) if 'out' in n], [])

    def test_unused_columns_are_never_parsed(self):
        result, out = self.eval('f = x;\n', 'junk,x\n#$%!,1\n')
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(out, 'f\n1\n')

    def test_header_only_input_gives_header_only_output(self):
        result, out = self.eval('input q: query;\nf = x * q;\n', 'x,q\n')
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(out, 'f\n')

    def test_header_only_input_is_zero_queries_for_every_input_kind_and_backend(self):
        # A file without rows is zero queries, with or without --group-by:
        # nothing is computed, no query input needs a value, only the header
        # row is written.
        sets = {
            'item inputs': 'f = x * 2;\ng = rank(x);\n',
            'item input with default': 'input x = 2;\nf = x * 2;\ng = rank(x);\n',
            'query input': 'input q: query;\nf = q * 2 + batch_count(1);\ng = rank(f);\n',
            'query input with default': 'input q: query = 3;\nf = q;\ng = rank(f);\n',
            'item vector': 'input v: item[2];\nf = norm(v);\ng = rank(f);\n',
            'query vector': 'input u: query[2];\nf = norm(u) + x;\ng = rank(f);\n',
            'no inputs': 'f = 1 + 2;\ng = batch_count(1);\n',
        }
        header = 'g_id,x,q,v[0],v[1],u[0],u[1]\n'
        for name, text in sets.items():
            for backend in ('reference', 'vm', 'jit', 'auto'):
                for group in ([], ['--group-by', 'g_id'], ['--group-by', 'q', '--chunk-bytes', '1']):
                    with self.subTest(set=name, backend=backend, group=group):
                        result, out = self.eval(text, header, '--backend', backend, '--keep',
                                                'g_id', *group)
                        self.assertEqual(result.returncode, 0, result.stderr)
                        self.assertEqual(out, 'g_id,f,g\n')
        # The columns are still checked: a needed input without a column or
        # default is an error, rows or not.
        result, out = self.eval('input q: query;\nf = q;\n', 'x\n', '--group-by', 'x')
        self.assertEqual(result.returncode, 1)
        self.assertIn("input 'q' has no column", result.stderr)
        self.assertIsNone(out)

    def test_group_by_gives_the_bits_of_one_file_per_query(self):
        text = 'input q: query;\ninput u: query[2];\nf = zscore(x * q) + norm(u) * rank(x);\n'
        rows = ['g,x,q,u[0],u[1]']
        for g in range(6):
            for i in range(g % 4):  # queries of 0 (absent), 1, 2, 3 rows
                rows.append('%d,%r,%r,%r,%r' % (g, i * 0.7 - g, g * 0.3 + 1, i + 0.5, -g / 7))
        result, grouped = self.eval(text, '\n'.join(rows) + '\n', '--group-by', 'g')
        self.assertEqual(result.returncode, 0, result.stderr)
        alone = []
        for g in range(6):
            part = [r for r in rows[1:] if r.startswith('%d,' % g)]
            if not part:
                continue
            result, out = self.eval(text, rows[0] + '\n' + '\n'.join(part) + '\n')
            self.assertEqual(result.returncode, 0, result.stderr)
            alone.extend(out.splitlines()[1:])
        self.assertEqual(grouped.splitlines()[1:], alone)

    def test_unterminated_quote_names_the_line_where_it_opened(self):
        csv = 'x,k\n1,a\n2,"b\n3,c\n4,d\n'
        for extra in ((), ('--group-by', 'x'), ('--group-by', 'x', '--chunk-bytes', '1')):
            result, out = self.eval('f = x;\n', csv, *extra)
            self.assertEqual(result.returncode, 1, extra)
            self.assertIn('line 3: error: unterminated quoted field (the quote opened on line 3',
                          result.stderr, extra)
            self.assertIsNone(out)

    def test_control_characters_in_cells_and_headers_are_shown_escaped(self):
        result, out = self.eval('f = x;\n', 'x\n1\x00\n')
        self.assertEqual(result.returncode, 1)
        self.assertNotIn('\x00', result.stderr)
        self.assertIn("cannot read '1\\x00' as a number", result.stderr)
        result, out = self.eval('f = x + `a\x1bb`;\n', 'x\n1\n')
        self.assertEqual(result.returncode, 1)
        self.assertNotIn('\x1b', result.stderr)
        self.assertIn('a\\x1bb', result.stderr)

    def test_byte_order_mark_starts_a_set_file_and_a_csv_file(self):
        result, out = self.eval('\ufeffinput x;\nf = x + 1;\n', '\ufeffx\n1\n')
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(out, 'f\n2\n')

    def test_outputs_order_and_subset(self):
        result, out = self.eval('a = x + 1;\nb = x + 2;\nc = y;\n', 'x\n1\n', '--outputs', 'b,a')
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(out, 'b,a\n3,2\n')

    def test_backends_by_name(self):
        result, _ = self.eval('f = x;\n', 'x\n1\n', '--backend', 'nope')
        self.assertEqual(result.returncode, 1)
        for backend in ('reference', 'auto'):
            result, out = self.eval('f = x;\n', 'x\n1\n', '--backend', backend)
            self.assertEqual(result.returncode, 0, result.stderr)

    def test_rows_must_match_the_header(self):
        result, out = self.eval('f = x;\n', 'x,y\n1\n')
        self.assertEqual(result.returncode, 1)
        self.assertIn('row 1 has 1 fields', result.stderr)

    def test_every_format_gives_the_same_bits(self):
        text = 'input q: query;\nf = sigmoid(x * q) / (1 + log1p(abs(x))) + zscore(x);\n'
        csv = 'x,q\n' + ''.join('%r,0.7\n' % (i * 0.37 - 3) for i in range(50))
        _, expected = self.eval(text, csv)
        set_path = self.dir.write('set.calc', text)
        for fmt in ('json', 'pb'):
            converted = self.dir.path('set2.' + fmt)
            self.assertEqual(run('print', set_path, '--format', fmt, '-o', converted).returncode, 0)
            out_path = self.dir.path('out2.csv')
            result = run('eval', converted, '--input', self.dir.path('in.csv'), '--output', out_path)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(self.dir.read('out2.csv'), expected)

    def test_deep_formula_in_every_format(self):
        expr = 'x'
        for level in range(2000):
            expr = '(%s + 1)' % expr if level % 2 == 0 else '-%s' % expr
        set_path = self.dir.write('deep.calc', 'f = %s;\n' % expr)
        in_path = self.dir.write('in.csv', 'x\n5\n')
        for fmt in ('calc', 'json', 'pb'):
            path = set_path
            if fmt != 'calc':
                path = self.dir.path('deep.' + fmt)
                self.assertEqual(run('print', set_path, '--format', fmt, '-o', path).returncode, 0)
            result = run('eval', path, '--input', in_path, '--output', self.dir.path('o.csv'))
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(self.dir.read('o.csv'), 'f\n5\n')

    def test_too_deep_is_a_clear_error(self):
        path = self.dir.write('deep.calc', 'f = ' + '-' * 20000 + 'x;\n')
        result = run('check', path)
        self.assertEqual(result.returncode, 1)
        self.assertIn('nested deeper than', result.stderr)


class StreamTest(unittest.TestCase):
    def test_a_quote_inside_an_unquoted_field_never_splits_a_batch(self):
        # Regression: records were cut by counting quotes per line, so a
        # quote that is only a character (x"1, z") joined rows into one
        # record keyed by its first row, and the next cut fell inside the
        # batch of k: each half got its own batch_sum. Records now end where
        # the CSV reader ends rows.
        d = Workdir()
        path = d.write('s.calc', 'input y;\ns = batch_sum(y);\n')
        data = d.write('in.csv', 'k,y,z\nx"1,1,z\nk,2,z"\nk,3,z\nk,4,"a""b"\n')
        for chunk in ('1', '8', '1000'):
            result = subprocess.run([CALCJIT, 'eval', path, '--input', data, '--output', '-',
                                     '--group-by', 'k', '--keep', 'k', '--chunk-bytes', chunk],
                                    capture_output=True, text=True)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(result.stdout, 'k,s\n"x""1",1\nk,9\nk,9\nk,9\n', chunk)

    def test_group_by_streams_in_chunks_with_the_same_result(self):
        d = Workdir()
        path = d.write('s.calc', 'input x; m = batch_mean(x); r = rank(x); d = x - m;\n')
        rows = ['q,x']
        for q in range(40):
            for i in range(1 + q % 7):
                rows.append('%d,%s' % (q, (q * 7 + i * 3) % 11 - 5))
        data = d.write('in.csv', '\n'.join(rows) + '\n')
        whole = run('eval', path, '--input', data, '--output', d.path('a.csv'),
                    '--group-by', 'q', '--keep', 'q')
        self.assertEqual(whole.returncode, 0, whole.stderr)
        for chunk in ('1', '10', '64', '1000'):
            result = run('eval', path, '--input', data, '--output', d.path('b.csv'),
                         '--group-by', 'q', '--keep', 'q', '--chunk-bytes', chunk)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(d.read('b.csv'), d.read('a.csv'), 'chunk ' + chunk)

    def test_errors_name_the_row_and_line_of_the_whole_file(self):
        d = Workdir()
        path = d.write('s.calc', 'input x; m = batch_mean(x);\n')
        data = d.write('in.csv', 'q,x\n1,1\n1,2\n2,3\n3,oops\n')
        result = run('eval', path, '--input', data, '--output', d.path('o.csv'),
                     '--group-by', 'q', '--chunk-bytes', '4')
        self.assertEqual(result.returncode, 1)
        self.assertIn("row 4 (line 5), column 'x'", result.stderr)
        self.assertFalse(os.path.exists(d.path('o.csv')), 'no partial output file')

    def test_threads_give_the_bytes_of_one_thread_in_input_order(self):
        d = Workdir()
        path = d.write('s.calc', 'input x; input w: query = 2; m = batch_mean(x) * w; '
                                 'r = rank(x); d = x - m;\n')
        rows = ['q,x,w']
        for q in range(300):
            for i in range(1 + q % 13):
                rows.append('"k%d",%s,%d' % (q % 97, (q * 7 + i * 3) % 11 - 5, q % 5))
        data = d.write('in.csv', '\r\n'.join(rows) + '\r\n')
        one = run('eval', path, '--input', data, '--output', d.path('one.csv'),
                  '--group-by', 'q', '--keep', 'q', '--threads', '1', '--chunk-bytes', '50')
        self.assertEqual(one.returncode, 0, one.stderr)
        for threads in ('2', '3', '8'):
            for chunk in ('1', '50', '1000', '100000000'):
                result = run('eval', path, '--input', data, '--output', d.path('n.csv'),
                             '--group-by', 'q', '--keep', 'q', '--threads', threads,
                             '--chunk-bytes', chunk)
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertEqual(d.read('n.csv'), d.read('one.csv'), threads + ' ' + chunk)
        default = run('eval', path, '--input', data, '--output', d.path('all.csv'),
                      '--group-by', 'q', '--keep', 'q')
        self.assertEqual(default.returncode, 0, default.stderr)
        self.assertEqual(d.read('all.csv'), d.read('one.csv'))

    def test_threads_report_the_first_error_in_input_order(self):
        d = Workdir()
        path = d.write('s.calc', 'input x; m = batch_mean(x);\n')
        rows = ['q,x'] + ['%d,%d' % (i // 3, i) for i in range(3000)]
        rows[2000] = '666,late'  # row 1999: a later chunk than row 5's
        rows[6] = '1,early'
        data = d.write('in.csv', '\n'.join(rows) + '\n')
        for threads in ('1', '2', '4'):
            result = run('eval', path, '--input', data, '--output', d.path('o.csv'),
                         '--group-by', 'q', '--threads', threads, '--chunk-bytes', '64')
            self.assertEqual(result.returncode, 1)
            self.assertIn("row 6 (line 7), column 'x'", result.stderr)
            self.assertNotIn('late', result.stderr)
            self.assertFalse(os.path.exists(d.path('o.csv')), 'no partial output file')

    def test_output_dash_writes_standard_output(self):
        d = Workdir()
        path = d.write('s.calc', 'input x; m = batch_mean(x);\n')
        data = d.write('in.csv', 'q,x\n1,1\n1,3\n2,5\n')
        for group in ([], ['--group-by', 'q', '--threads', '2']):
            result = run('eval', path, '--input', data, '--output', '-', '--keep', 'x', *group)
            self.assertEqual(result.returncode, 0, result.stderr)
            expected = 'x,m\n1,3\n3,3\n5,3\n' if not group else 'x,m\n1,2\n3,2\n5,5\n'
            self.assertEqual(result.stdout, expected)
            self.assertFalse(os.path.exists('-'))


class GraphTest(unittest.TestCase):
    SET = ('input price; input q: query = 1; a = price * q; m = batch_mean(a);\n'
           'b = a - m; unused = price + 1;\n')

    def setUp(self):
        self.dir = Workdir()

    def test_dot_has_every_needed_node_coloured_by_kind(self):
        path = self.dir.write('g.calc', self.SET)
        result = run('graph', path, '--outputs', 'b')
        self.assertEqual(result.returncode, 0, result.stderr)
        dot = result.stdout
        self.assertTrue(dot.startswith('digraph features {'))
        self.assertIn('"price" -> "a"', dot)
        self.assertIn('"q" -> "a"', dot)
        self.assertIn('"a" -> "m"', dot)
        self.assertIn('"m" -> "b"', dot)
        self.assertIn('"m" [fillcolor="#ffd8a8"]', dot)      # aggregate
        self.assertIn('"b" [fillcolor="#b7e4c7"]', dot)      # output
        self.assertIn('"a" [fillcolor="#cfe2ff"]', dot)      # calculated
        self.assertNotIn('unused', dot)                      # not needed by b
        # Without --outputs, the outputs are the definitions nothing uses.
        everything = run('graph', path).stdout
        self.assertIn('"unused" [fillcolor="#b7e4c7"]', everything)

    def test_svg_through_graphviz(self):
        path = self.dir.write('g.calc', self.SET)
        out = self.dir.path('g.svg')
        result = run('graph', path, '--format', 'svg', '-o', out)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn('<svg', self.dir.read('g.svg'))

    def test_unknown_output_is_an_error(self):
        path = self.dir.write('g.calc', self.SET)
        result = run('graph', path, '--outputs', 'nope')
        self.assertEqual(result.returncode, 1)
        self.assertIn("unknown output 'nope'", result.stderr)


class ExplainTest(unittest.TestCase):
    def setUp(self):
        self.dir = Workdir()

    def test_every_intermediate_value_of_the_row_within_its_batch(self):
        path = self.dir.write('e.calc', 'input x; m = batch_mean(x); d = x - m; s = d * 2;\n')
        data = self.dir.write('in.csv', 'g,x\n1,1\n1,3\n2,10\n2,20\n2,60\n')
        result = run('explain', path, 's', '--input', data, '--row', '4', '--group-by', 'g')
        self.assertEqual(result.returncode, 0, result.stderr)
        out = result.stdout
        self.assertIn('rows 3-5 (g = 2)', out)
        self.assertRegex(out, r'x\s+20 \(0x41A00000\)')
        self.assertRegex(out, r'm \(aggregate\)\s+30 \(0x41F00000\)')
        self.assertRegex(out, r'd\s+-10 \(0xC1200000\)')
        self.assertRegex(out, r's\s+-20 \(0xC1A00000\)')
        # Without --group-by the whole file is one batch.
        whole = run('explain', path, 'm', '--input', data, '--row', '4').stdout
        self.assertRegex(whole, r'm \(aggregate\)\s+18.7999992')

    def test_row_out_of_range_and_unknown_feature(self):
        path = self.dir.write('e.calc', 'input x; s = x * 2;\n')
        data = self.dir.write('in.csv', 'x\n1\n')
        result = run('explain', path, 's', '--input', data, '--row', '2')
        self.assertEqual(result.returncode, 1)
        self.assertIn('not a data row', result.stderr)
        result = run('explain', path, 'nope', '--input', data, '--row', '1')
        self.assertEqual(result.returncode, 1)
        self.assertIn("unknown feature 'nope'", result.stderr)


class BenchTest(unittest.TestCase):
    def test_every_backend_timed_with_the_same_bits(self):
        d = Workdir()
        path = d.write('b.calc', 'input x; input e: item[4]; input u: query[4];\n'
                                 's = log1p(abs(x)) * dot(e, u) + rank(x);\n')
        result = run('bench', path, '--items', '300', '--seconds', '0.05')
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        for backend in ('evaluated', 'vm', 'jit'):
            row = [l for l in lines if l.startswith(backend + ' ')]
            self.assertEqual(len(row), 1, result.stdout)
            self.assertTrue(row[0].rstrip().endswith('yes'), row[0])
        self.assertRegex(result.stdout, r'evaluated .* 1\.0x')


MODEL_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'model', 'data')


def bits_to_float(word):
    return struct.unpack('<f', struct.pack('<I', int(word, 16)))[0]


class ModelsTest(unittest.TestCase):
    """A set with a LightGBM model beside it: check lists the model, eval gives
    the raw scores recorded with the model tests' data, print needs no model
    file, and model paths are confined to the model root."""

    def setUp(self):
        self.dir = Workdir()
        with open(os.path.join(MODEL_DATA, 'lgb_regression.txt'), 'rb') as f:
            self.dir.write('lgb.txt', f.read())
        self.set = self.dir.write('s.calc', 'model lgb = lightgbm("lgb.txt");\n'
                                  'pred = model(lgb)[0];\nhalf = pred / 2;\n')
        self.rows = []
        with open(os.path.join(MODEL_DATA, 'lgb_regression.cases')) as f:
            for line in f:
                if line.startswith('#') or ':' not in line:
                    continue
                inputs, outputs = line.split(':')
                self.rows.append(([bits_to_float(w) for w in inputs.split()],
                                  bits_to_float(outputs.split()[0])))

    def test_check_lists_the_models(self):
        result = run('check', self.set)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn('lgb = lgb.txt: lightgbm', result.stdout)

    def test_eval_gives_lightgbms_raw_scores(self):
        lines = ['price,clicks,age,score']
        for inputs, _ in self.rows:
            lines.append(','.join(repr(x) for x in inputs))
        data = self.dir.write('in.csv', '\n'.join(lines) + '\n')
        for backend in ('reference', 'vm', 'jit'):
            out = self.dir.path('out-%s.csv' % backend)
            result = run('eval', self.set, '--input', data, '--output', out, '--backend', backend,
                         '--outputs', 'pred,half')
            self.assertEqual(result.returncode, 0, result.stderr)
            body = self.dir.read('out-%s.csv' % backend).splitlines()
            header = body[0].split(',')
            for (inputs, expected), row in zip(self.rows, body[1:]):
                cells = dict(zip(header, row.split(',')))
                got = f32(float(cells['pred']))
                if expected != expected:
                    self.assertNotEqual(got, got)
                else:
                    self.assertEqual(struct.pack('<f', got), struct.pack('<f', expected), row)
                    self.assertEqual(f32(float(cells['half'])), f32(expected / 2))

    def test_print_needs_no_model_file(self):
        os.remove(self.dir.path('lgb.txt'))
        result = run('print', self.set)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn('model lgb = lightgbm("lgb.txt");', result.stdout)
        result = run('check', self.set)
        self.assertEqual(result.returncode, 1)
        self.assertIn('lgb.txt', result.stderr)

    def test_explain_shows_the_rows_path_through_the_trees(self):
        inputs, _ = self.rows[0]
        data = self.dir.write('in.csv', 'price,clicks,age,score\n' +
                              ','.join(repr(x) for x in inputs) + '\n')
        result = run('explain', self.set, 'half', '--input', data, '--row', '1', '--trees', '2')
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn('model lgb (lightgbm', result.stdout)
        self.assertIn('tree 0 (output 0):', result.stdout)
        self.assertIn('tree 1 (output 0):', result.stdout)
        self.assertNotIn('tree 2 (', result.stdout)

    def test_model_root_and_paths_outside_it(self):
        os.makedirs(self.dir.path('models'))
        os.rename(self.dir.path('lgb.txt'), self.dir.path('models/lgb.txt'))
        self.assertEqual(run('check', self.set).returncode, 1)
        result = run('check', self.set, '--model-root', self.dir.path('models'))
        self.assertEqual(result.returncode, 0, result.stderr)
        outside = self.dir.write('up.calc', 'model lgb = lightgbm("../lgb.txt");\n'
                                 'pred = model(lgb)[0];\n')
        result = run('check', outside, '--model-root', self.dir.path('models'))
        self.assertEqual(result.returncode, 1)
        self.assertIn('leads outside the model root', result.stderr)

    def test_outputs_never_replace_a_model_file(self):
        # Regression (issue 26, cause 4): eval --output replaced the set's
        # model file when it named it. Every command that writes a file
        # refuses every spelling of every model file the set declares (by
        # device and inode), and the model is left as it was.
        data = self.dir.write('in.csv', 'price,clicks,age,score\n1,2,3,4\n')
        model = self.dir.path('lgb.txt')
        with open(model, 'rb') as f:
            before = f.read()
        os.symlink('lgb.txt', self.dir.path('link.txt'))
        os.link(model, self.dir.path('hard.txt'))
        spellings = (model, self.dir.path('link.txt'), self.dir.path('hard.txt'),
                     os.path.join(self.dir.tmp.name, '..', os.path.basename(self.dir.tmp.name),
                                  'lgb.txt'))
        for output in spellings:
            for command in (('eval', self.set, '--input', data, '--output', output),
                            ('eval', self.set, '--input', data, '--output', output,
                             '--group-by', 'price'),
                            ('print', self.set, '-o', output),
                            ('graph', self.set, '-o', output)):
                result = run(*command)
                self.assertEqual(result.returncode, 1, command)
                self.assertIn("is the same file as the input '%s'" % model, result.stderr)
        # Standard output redirected onto the model file is refused too.
        with open(self.dir.path('hard.txt'), 'ab') as out:
            result = subprocess.run([CALCJIT, 'eval', self.set, '--input', data, '--output', '-'],
                                    stdout=out, stderr=subprocess.PIPE, text=True)
        self.assertEqual(result.returncode, 1)
        with open(model, 'rb') as f:
            self.assertEqual(f.read(), before)

    def test_graph_draws_model_calls_with_their_inputs(self):
        # model(lgb)[0] lists no inputs: they are the model's features by name
        # (spec 6.1), drawn as edges into the model's node.
        self.dir.write('g.calc', 'model lgb = lightgbm("lgb.txt");\ninput a;\n'
                       'pred = model(lgb)[0];\nboth = model(lgb, a, a, a, a)[0] + pred;\n')
        result = run('graph', self.dir.path('g.calc'))
        self.assertEqual(result.returncode, 0, result.stderr)
        dot = result.stdout
        self.assertIn('"\\model 0" [shape=component, fillcolor="#e5dbff", '
                      'label="lgb\\n(lightgbm model)"];', dot)
        for feature in ('price', 'clicks', 'age', 'score'):
            self.assertIn('"%s" -> "\\model 0";' % feature, dot)
        self.assertIn('"\\model 0" -> "pred" [label="[0]"];', dot)
        self.assertIn('"a" -> "\\model 1";', dot)
        self.assertIn('"\\model 1" -> "both" [label="[0]"];', dot)
        self.assertIn('"pred" -> "both";', dot)
        self.assertNotIn('"a" -> "both"', dot)  # a is read by the model, not by both
        # Without its model file the set is still drawn, and says what is missing.
        os.remove(self.dir.path('lgb.txt'))
        result = run('graph', self.dir.path('g.calc'))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn('drawn without its models', result.stderr)
        self.assertIn('inputs: its features (not loaded)', result.stdout)
        self.assertNotIn('"price"', result.stdout)
class LibraryModelsTest(unittest.TestCase):
    """Models of XGBoost 3.4.1 (UBJSON and JSON) and LightGBM 4.7.0 through
    `calcjit eval`, their inputs implied by the models' feature names (contract
    6.1: f0, f1, ... when the file names none): every row of the committed
    cases gives the library's own bits on every backend."""

    MODELS = [('xgb3_categorical_partition.ubj', 'xgboost'), ('xgb3_multi_target.ubj', 'xgboost'),
              ('xgb3_rank_ndcg.json', 'xgboost'), ('lgb4_categorical.txt', 'lightgbm'),
              ('lgb4_multiclass.txt', 'lightgbm')]

    def test_eval_gives_each_librarys_own_bits(self):
        work = Workdir()
        for model, library in self.MODELS:
            base = os.path.splitext(model)[0]
            with open(os.path.join(MODEL_DATA, model), 'rb') as f:
                work.write(model, f.read())
            rows = []
            with open(os.path.join(MODEL_DATA, base + '.cases')) as f:
                for line in f:
                    if line.startswith('#') or ':' not in line:
                        continue
                    inputs, outputs = line.split(':')
                    rows.append((inputs.split(), outputs.split()))
            outputs = len(rows[0][1])
            text = 'model m = %s("%s");\n' % (library, model)
            text += ''.join('out%d = model(m)[%d];\n' % (k, k) for k in range(outputs))
            calc = work.write(base + '.calc', text)
            names = run('check', calc)
            self.assertEqual(names.returncode, 0, names.stderr)
            # The implied inputs, as `check` lists them: the models' feature names.
            listing = names.stdout.split('implicit inputs (used')[-1].split('models:')[0]
            features = [line.strip() for line in listing.splitlines()[1:] if line.strip()]
            self.assertEqual(len(features), len(rows[0][0]), names.stdout)
            lines = [','.join(features)]
            for inputs, _ in rows:
                lines.append(','.join(repr(bits_to_float(w)) for w in inputs))
            data = work.write(base + '.csv', '\n'.join(lines) + '\n')
            for backend in ('reference', 'vm', 'jit'):
                out = work.path('%s-%s.out.csv' % (base, backend))
                result = run('eval', calc, '--input', data, '--output', out, '--backend', backend)
                self.assertEqual(result.returncode, 0, result.stderr)
                body = work.read(os.path.basename(out)).splitlines()
                header = body[0].split(',')
                for (_, expected), row in zip(rows, body[1:]):
                    cells = dict(zip(header, row.split(',')))
                    for k in range(outputs):
                        got = struct.pack('<f', f32(float(cells['out%d' % k])))
                        want = struct.pack('<f', bits_to_float(expected[k]))
                        self.assertEqual(got, want, (model, backend, row))


class CatboostModelsTest(unittest.TestCase):
    """A set with a CatBoost model (spec 6.5), through the same commands:
    check describes it, eval gives CatBoost 1.2.10's own bits (recorded with
    the model tests' data), explain shows each tree's path and, for the
    oblivious trees, the leaf index."""

    def setUp(self):
        self.dir = Workdir()
        for name in ('catboost_multiclass.json', 'catboost_lossguide.cbm'):
            with open(os.path.join(MODEL_DATA, name), 'rb') as f:
                self.dir.write(name, f.read())
        self.set = self.dir.write('s.calc', 'model cb = catboost("catboost_multiclass.json");\n'
                                  'model lg = catboost("catboost_lossguide.cbm");\n'
                                  'c0 = model(cb)[0];\nc2 = model(cb)[2];\n'
                                  'l = model(lg, f0, f1, f2, f3)[0];\n')
        self.rows = []
        with open(os.path.join(MODEL_DATA, 'catboost_multiclass.cases')) as f:
            for line in f:
                if line.startswith('#') or ':' not in line:
                    continue
                inputs, outputs = line.split(':')
                self.rows.append(([bits_to_float(w) for w in inputs.split()],
                                  [bits_to_float(w) for w in outputs.split()]))

    def test_check_describes_the_models(self):
        result = run('check', self.set)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn('cb = catboost_multiclass.json: catboost: 12 trees, depth 3, 4 features, '
                      '3 outputs', result.stdout)
        self.assertIn('lg = catboost_lossguide.cbm: catboost: ', result.stdout)

    def test_eval_gives_catboosts_own_bits(self):
        lines = ['f0,f1,f2,f3']
        for inputs, _ in self.rows:
            lines.append(','.join(repr(x) for x in inputs))
        data = self.dir.write('in.csv', '\n'.join(lines) + '\n')
        for backend in ('reference', 'vm', 'jit'):
            out = self.dir.path('out-%s.csv' % backend)
            result = run('eval', self.set, '--input', data, '--output', out, '--backend', backend,
                         '--outputs', 'c0,c2')
            self.assertEqual(result.returncode, 0, result.stderr)
            body = self.dir.read('out-%s.csv' % backend).splitlines()
            header = body[0].split(',')
            self.assertEqual(len(body) - 1, len(self.rows))
            for (inputs, expected), row in zip(self.rows, body[1:]):
                cells = dict(zip(header, row.split(',')))
                for name, k in (('c0', 0), ('c2', 2)):
                    got = f32(float(cells[name]))
                    self.assertEqual(struct.pack('<f', got), struct.pack('<f', expected[k]), row)

    def test_explain_shows_paths_and_leaf_indices(self):
        inputs, _ = self.rows[0]
        data = self.dir.write('in.csv', 'f0,f1,f2,f3\n' + ','.join(repr(x) for x in inputs) + '\n')
        result = run('explain', self.set, 'c2', '--input', data, '--row', '1', '--trees', '3')
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn('model cb (catboost', result.stdout)
        # Tree 2 is the file's tree 0 for output 2 (a tree per output dimension).
        self.assertRegex(result.stdout, r'tree 2 \(output 2\):( f\d=\S+ (<=|>) \S+->(left|right),)'
                                        r'{3} leaf \S+ \(symmetric tree: leaf index \d of 8\)')
        self.assertNotIn('tree 3 (', result.stdout)
        result = run('explain', self.set, 'l', '--input', data, '--row', '1', '--trees', '2')
        self.assertEqual(result.returncode, 0, result.stderr)
        lossguide = result.stdout[result.stdout.index('model lg ('):]
        self.assertIn('tree 0 (output 0):', lossguide)
        self.assertNotIn('symmetric tree', lossguide)  # Lossguide trees are not


class OutputTest(unittest.TestCase):
    """Every command that writes a file (eval --output, print -o, graph -o)
    writes what the path names and never loses data (cli/output_file.h)."""

    SET = 'input x;\ny = x * 2;\n'
    CSV = 'x\n1\n2\n'
    RESULT = 'y\n2\n4\n'

    def setUp(self):
        self.dir = Workdir()
        self.set = self.dir.write('set.calc', self.SET)
        self.csv = self.dir.write('in.csv', self.CSV)

    def eval_to(self, output, *extra, **kwargs):
        return subprocess.run([CALCJIT, 'eval', self.set, '--input', self.csv, '--output', output,
                               *extra], capture_output=True, text=True, **kwargs)

    def writers(self, output):
        """The same output through each command: (name, result, what it writes)."""
        yield 'eval', self.eval_to(output), self.RESULT
        yield 'print', run('print', self.set, '-o', output), self.SET
        yield 'graph', run('graph', self.set, '-o', output), None

    def leftovers(self):
        return sorted(n for n in os.listdir(self.dir.tmp.name) if 'calcjit' in n)

    def test_new_file_gets_the_umask_mode(self):
        old = os.umask(0o027)
        try:
            for command, result, expected in self.writers(self.dir.path('new.out')):
                self.assertEqual(result.returncode, 0, result.stderr)
                mode = stat.S_IMODE(os.stat(self.dir.path('new.out')).st_mode)
                self.assertEqual(mode, 0o640, command)
                os.remove(self.dir.path('new.out'))
        finally:
            os.umask(old)
        self.assertEqual(self.leftovers(), [])

    def test_existing_file_keeps_its_permissions_and_is_replaced_whole(self):
        out = self.dir.write('out.csv', 'old contents\n')
        os.chmod(out, 0o604)
        for command, result, expected in self.writers(out):
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(stat.S_IMODE(os.stat(out).st_mode), 0o604, command)
            if expected is not None:
                self.assertEqual(self.dir.read('out.csv'), expected, command)
        self.assertEqual(self.leftovers(), [])

    def test_symbolic_link_stays_a_link_and_its_target_is_written(self):
        target = self.dir.write('target.csv', 'old\n')
        os.chmod(target, 0o640)
        link = self.dir.path('link.csv')
        os.symlink('target.csv', link)  # relative: resolved from the link's folder
        for command, result, expected in self.writers(link):
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertTrue(os.path.islink(link), command)
            self.assertEqual(stat.S_IMODE(os.stat(target).st_mode), 0o640, command)
            if expected is not None:
                self.assertEqual(self.dir.read('target.csv'), expected, command)

    def test_dangling_link_creates_its_target(self):
        link = self.dir.path('dangling.csv')
        os.symlink('made.csv', link)
        result = self.eval_to(link)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(os.path.islink(link))
        self.assertEqual(self.dir.read('made.csv'), self.RESULT)

    def test_dash_is_standard_output(self):
        result = self.eval_to('-')
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, self.RESULT)
        self.assertFalse(os.path.exists(self.dir.path('-')))
        result = subprocess.run([CALCJIT, 'print', self.set, '-o', '-'], capture_output=True,
                                text=True, cwd=self.dir.tmp.name)
        self.assertEqual(result.stdout, self.SET)
        self.assertFalse(os.path.exists(self.dir.path('-')))

    def test_character_device_is_written_through(self):
        result = self.eval_to('/dev/stdout')
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, self.RESULT)
        result = self.eval_to('/dev/null')
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(stat.S_ISCHR(os.stat('/dev/null').st_mode))

    def test_fifo_is_written_through_and_stays_a_fifo(self):
        fifo = self.dir.path('pipe')
        os.mkfifo(fifo)
        received = []

        def read_all():
            with open(fifo) as pipe:
                received.append(pipe.read())
        reader = threading.Thread(target=read_all)
        reader.start()
        result = self.eval_to(fifo)
        reader.join(timeout=30)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(received, [self.RESULT])
        self.assertTrue(stat.S_ISFIFO(os.stat(fifo).st_mode))

    def test_output_that_is_an_input_is_refused_and_left_alone(self):
        link = self.dir.path('link-to-input.csv')
        os.symlink(self.csv, link)
        hard = self.dir.path('hard-link.csv')
        os.link(self.csv, hard)
        for output in (self.csv, link, hard, self.set):
            result = self.eval_to(output)
            self.assertEqual(result.returncode, 1, output)
            self.assertIn('is the same file as the input', result.stderr)
            self.assertIn('nothing was written', result.stderr)
        for command in ('print', 'graph'):
            result = run(command, self.set, '-o', self.set)
            self.assertEqual(result.returncode, 1, command)
            self.assertIn("is the same file as the input '%s'" % self.set, result.stderr)
        self.assertEqual(self.dir.read('in.csv'), self.CSV)
        self.assertEqual(self.dir.read('set.calc'), self.SET)
        self.assertTrue(os.path.islink(link))
        self.assertEqual(self.leftovers(), [])

    def test_error_leaves_the_old_file_and_no_temporary(self):
        out = self.dir.write('out.csv', 'precious\n')
        self.dir.write('in.csv', 'x\nnot-a-number\n')
        for extra in ((), ('--group-by', 'x')):
            result = self.eval_to(out, *extra)
            self.assertEqual(result.returncode, 1)
            self.assertEqual(self.dir.read('out.csv'), 'precious\n')
        self.assertEqual(self.leftovers(), [])

    def test_error_writes_nothing_to_a_stream(self):
        self.dir.write('in.csv', 'x\n1\nbad\n')
        result = self.eval_to('-', '--group-by', 'x', '--chunk-bytes', '1')
        self.assertEqual(result.returncode, 1)
        self.assertEqual(result.stdout, '')
        self.assertIn('bad', result.stderr)

    def test_read_only_file_and_directory_are_refused(self):
        out = self.dir.write('ro.csv', 'keep\n')
        os.chmod(out, 0o444)
        if os.geteuid() != 0:  # root may write anything
            result = self.eval_to(out)
            self.assertEqual(result.returncode, 1)
            self.assertEqual(self.dir.read('ro.csv'), 'keep\n')
        result = self.eval_to(self.dir.tmp.name)
        self.assertEqual(result.returncode, 1)
        self.assertIn('is a directory', result.stderr)
        result = self.eval_to(self.dir.path('no-such-folder/out.csv'))
        self.assertEqual(result.returncode, 1)
        self.assertIn('cannot create a temporary file', result.stderr)

    def test_signal_removes_the_temporary_file(self):
        # The input is a FIFO the test writes: with --group-by and tiny
        # chunks, eval writes the first chunk to its temporary file, then
        # waits for more rows; the signal arrives while it waits.
        for signal_number in (signal.SIGINT, signal.SIGTERM):
            fifo = self.dir.path('rows')
            os.mkfifo(fifo)
            out = self.dir.write('out.csv', 'precious\n')
            process = subprocess.Popen(
                [CALCJIT, 'eval', self.set, '--input', fifo, '--output', out,
                 '--group-by', 'x', '--chunk-bytes', '1'],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            writer = open(fifo, 'w')
            writer.write('x\n1\n2\n3\n')
            writer.flush()
            deadline = time.monotonic() + 30
            while not self.leftovers() and time.monotonic() < deadline:
                time.sleep(0.01)
            self.assertEqual(len(self.leftovers()), 1)
            temporary = self.dir.path(self.leftovers()[0])
            deadline = time.monotonic() + 30
            while os.path.getsize(temporary) == 0 and time.monotonic() < deadline:
                time.sleep(0.01)  # the first chunk is written: it is waiting
            process.send_signal(signal_number)
            process.wait(timeout=30)
            writer.close()
            process.stdout.close()
            process.stderr.close()
            self.assertEqual(process.returncode, -signal_number)
            self.assertEqual(self.leftovers(), [])
            self.assertEqual(self.dir.read('out.csv'), 'precious\n')
            os.remove(fifo)


class HostileInputTest(unittest.TestCase):
    """Input an adversary would write: every one a clear, short error."""

    def setUp(self):
        self.dir = Workdir()

    def check(self, name, data):
        return run('check', self.dir.write(name, data))

    def test_overlong_numbers_names_and_cells_give_short_messages(self):
        digits = '1' + '0' * 100000
        for name, data in (('n.calc', 'f = %s;\n' % digits),
                           ('m.calc', 'f = 1.%s.5;\n' % digits),
                           ('n.json', '{"features": [{"name": "f", "expression": '
                                      '{"constant": %s}}]}' % digits),
                           ('long.calc', '`%s` = 1;\n' % ('a' * 100000))):
            result = self.check(name, data)
            self.assertEqual(result.returncode, 1, name)
            self.assertLess(len(result.stderr), 1000, name)
            self.assertIn('...', result.stderr, name)
        set_path = self.dir.write('s.calc', 'input x;\nf = x;\n')
        in_path = self.dir.write('in.csv', 'x\n%s\n' % ('9' * 100000))
        result = run('eval', set_path, '--input', in_path, '--output', self.dir.path('o.csv'))
        self.assertEqual(result.returncode, 1)
        self.assertIn('beyond the float32 range', result.stderr)
        self.assertLess(len(result.stderr), 1000)

    def test_sizes_too_large_for_memory_are_an_error_not_an_abort(self):
        set_path = self.dir.write('s.calc', 'input x;\nf = x * 2;\n')
        for args in (('bench', set_path, '--items', str(10 ** 15)),
                     ('demo', '--items', str(10 ** 15))):
            result = run(*args)
            self.assertEqual(result.returncode, 1, args)
            self.assertIn('out of memory', result.stderr, args)
        result = run('bench', set_path, '--seconds', '-1')
        self.assertEqual(result.returncode, 1)

    def test_nesting_and_dimensions_beyond_the_limits(self):
        deep = 'f = ' + '(' * 100000 + 'x' + ')' * 100000 + ';\n'
        result = self.check('deep.calc', deep)
        self.assertEqual(result.returncode, 1)
        self.assertIn('nested deeper than', result.stderr)
        result = self.check('deep.json', '{"features": ' + '[' * 200000 + ']' * 200000 + '}')
        self.assertEqual(result.returncode, 1)
        result = self.check('groups.pb', b'\x7b' * 100000 + b'\x7c' * 100000)
        self.assertEqual(result.returncode, 1)
        self.assertIn('groups nested deeper than', result.stderr)
        for dimension in ('0', '65537', '4294967297', '99999999999999999999'):
            result = self.check('dim.calc', 'input v: item[%s];\nf = norm(v);\n' % dimension)
            self.assertEqual(result.returncode, 1, dimension)
            self.assertIn('65536', result.stderr, dimension)
        result = self.check('dim.json', '{"inputs": [{"name": "v", "dimension": 4294967297}]}')
        self.assertEqual(result.returncode, 1)
        self.assertIn('out of range', result.stderr)

    def test_names_never_reach_the_terminal_raw(self):
        # A name may hold any character; what the commands print shows
        # control characters (ESC starts a terminal escape sequence, U+009B
        # is one in C1) as \xNN.
        text = 'input `a\x1b[2Jb`;\n`f\u009b` = `a\x1b[2Jb` + `z\x00` + `q"]`;\n'
        set_path = self.dir.write('names.calc', text)
        result = run('check', set_path)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn('z\\x00', result.stdout)
        in_path = self.dir.write('in.csv', 'a\x1b[2Jb,z\x00,"q""]"\n1,2,3\n')
        result = run('explain', set_path, 'f\u009b', '--input', in_path, '--row', '1')
        self.assertEqual(result.returncode, 0, result.stderr)
        result_graph = run('graph', set_path)
        self.assertEqual(result_graph.returncode, 0, result_graph.stderr)
        for output in (result.stdout, result_graph.stdout):
            self.assertNotIn('\x1b', output)
            self.assertNotIn('\x00', output)
            self.assertNotIn('\u009b', output)
        self.assertIn('a\\x1b[2Jb', result.stdout)
        self.assertIn('f\\xc2\\x9b', result.stdout)
        # A quote in a name cannot end a DOT string (a label injected).
        self.assertIn('"q\\"]" [shape=ellipse, fillcolor="#e0e0e0", label="q\\"]"]',
                      result_graph.stdout)

    def test_paths_that_name_no_file_of_the_right_kind(self):
        set_path = self.dir.write('s.calc', 'input x;\nf = x;\n')
        result = run('check', self.dir.tmp.name, '--input-format', 'calc')
        self.assertEqual(result.returncode, 1)
        self.assertIn('is a directory, not a feature set file', result.stderr)
        for command in (('eval', set_path, '--input', self.dir.tmp.name,
                         '--output', self.dir.path('o.csv')),
                        ('explain', set_path, 'f', '--input', self.dir.tmp.name, '--row', '1')):
            result = run(*command)
            self.assertEqual(result.returncode, 1, command)
            self.assertIn('is a directory, not a CSV file', result.stderr, command)
        # A pipe is a file: read to its end (calcjit check <(generate)).
        with open(set_path, 'rb') as source:
            result = subprocess.run([CALCJIT, 'check', '/dev/stdin', '--input-format', 'calc'],
                                    stdin=source, capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_csv_headers_an_adversary_writes(self):
        set_path = self.dir.write('s.calc', 'input x;\nf = x;\n')
        out = self.dir.path('o.csv')
        for csv, expected in (('x,x\n1,2\n', "appears more than once"),
                              ('x\n1,2\n', 'has 2 fields, but the header has 1'),
                              ('x,y\n1\n', 'has 1 fields, but the header has 2'),
                              ('', 'no header row'),
                              (',\n1,2\n', "input 'x' has no column")):
            in_path = self.dir.write('in.csv', csv)
            result = run('eval', set_path, '--input', in_path, '--output', out)
            self.assertEqual(result.returncode, 1, csv)
            self.assertIn(expected, result.stderr, csv)
            self.assertFalse(os.path.exists(out))


class FirstHourTest(unittest.TestCase):
    """What a new user meets in the first hour: the version, options checked
    with a suggestion for a typo, progress with the time left, and inputs
    that cannot take more than the memory budget."""

    SET = 'input x;\nf = x * 2;\n'

    def setUp(self):
        self.dir = Workdir()
        self.set = self.dir.write('s.calc', self.SET)
        self.csv = self.dir.write('in.csv', 'q,x\n' + ''.join(
            '%d,%d\n' % (i // 10, i) for i in range(20000)))

    def eval(self, *extra):
        return run('eval', self.set, '--input', self.csv, '--output', self.dir.path('o.csv'),
                   *extra)

    def test_version(self):
        result = run('--version')
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRegex(result.stdout, r'^calcjit \d+\.\d+\.\d+ \(backends: reference')
        self.assertIn('--version', run('--help').stdout)

    def test_threads_are_1_to_256(self):
        for value in ('0', '-1', '257', '100000', 'many', '1e9'):
            result = self.eval('--group-by', 'q', '--threads', value)
            self.assertEqual(result.returncode, 1, value)
            self.assertIn('--threads', result.stderr, value)
            self.assertFalse(os.path.exists(self.dir.path('o.csv')))
        for value in ('1', '256'):
            self.assertEqual(self.eval('--group-by', 'q', '--threads', value).returncode, 0)

    def test_counts_and_durations_are_checked(self):
        # "-1" once wrapped to 2^64 - 1 (an abort in demo and bench, row
        # 18446744073709551615 in explain); --seconds had no end.
        for args in (('demo', '--items', '-1'), ('bench', self.set, '--items', '-1'),
                     ('bench', self.set, '--seconds', '1e9'), ('bench', self.set, '--seconds', '0'),
                     ('explain', self.set, 'f', '--input', self.csv, '--row', '-1'),
                     ('explain', self.set, 'f', '--input', self.csv, '--row', '0'),
                     ('explain', self.set, 'f', '--input', self.csv, '--row', '1', '--trees', '-3'),
                     ('dump', self.set, '--block-size', '-8')):
            result = run(*args)
            self.assertEqual(result.returncode, 1, args)
            self.assertIn(args[-2], result.stderr, args)

    def test_did_you_mean(self):
        result = self.eval('--group-by', 'q', '--thread', '2')
        self.assertEqual(result.returncode, 1)
        self.assertIn("did you mean '--threads'", result.stderr)
        result = run('evl', self.set)
        self.assertEqual(result.returncode, 1)
        self.assertIn("unknown command 'evl' (did you mean 'eval'?)", result.stderr)
        result = self.eval('--outputs', 'F')
        self.assertIn("unknown output 'F': the set does not define it (did you mean 'f'?)",
                      result.stderr)
        result = self.eval('--group-by', 'Q')
        self.assertIn("(did you mean 'q'?)", result.stderr)
        misspelt = self.dir.write('typo.csv', 'q,xx\n1,2\n')
        result = run('eval', self.set, '--input', misspelt, '--output', self.dir.path('o.csv'))
        self.assertIn("input 'x' has no column in the input file and no default value "
                      "(did you mean 'xx'?)", result.stderr)
        result = run('graph', self.set, '--outputs', 'ff')
        self.assertIn("(did you mean 'f'?)", result.stderr)
        result = run('explain', self.set, 'ff', '--input', self.csv, '--row', '1')
        self.assertIn("(did you mean 'f'?)", result.stderr)

    def test_progress_shows_percent_and_time_left(self):
        result = self.eval('--group-by', 'q', '--chunk-bytes', '4096', '--threads', '1',
                           '--progress')
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stderr.splitlines()
        self.assertGreaterEqual(len(lines), 2, result.stderr)
        self.assertRegex(lines[0], r'^calcjit eval: \d+% of [\d.]+ KiB, \d+ items, .* left$')
        self.assertRegex(lines[-1], r'^calcjit eval: 100% of [\d.]+ KiB, 20000 items, .* in all$')
        # Input of unknown size (a pipe): items and rate, no percent.
        cat = subprocess.Popen(['cat', self.csv], stdout=subprocess.PIPE)
        piped = subprocess.run([CALCJIT, 'eval', self.set, '--input', '/dev/stdin',
                                '--output', self.dir.path('o.csv'), '--progress'],
                               stdin=cat.stdout, capture_output=True, text=True)
        cat.stdout.close()
        cat.wait()
        self.assertEqual(piped.returncode, 0, piped.stderr)
        self.assertRegex(piped.stderr, r'^calcjit eval: 20000 items, ')
        # Not a terminal and not asked for: nothing.
        self.assertEqual(self.eval().stderr, '')

    def test_inputs_within_the_memory_budget(self):
        # 16 MiB of budget: 819 KiB of CSV text at once, records of 102 KiB.
        budget = ('--memory-budget', '16M')
        big = self.dir.write('big.csv', 'q,x\n' + '1,2\n' * 300000)  # 1.2 MB
        result = run('eval', self.set, '--input', big, '--output', self.dir.path('o.csv'), *budget)
        self.assertEqual(result.returncode, 1)
        self.assertIn('is larger than 819 KiB', result.stderr)
        self.assertIn('--group-by COLUMN', result.stderr)
        # Streamed by group it fits; one group that does not fit is an error.
        result = run('eval', self.set, '--input', big, '--output', self.dir.path('o.csv'),
                     '--group-by', 'x', *budget)
        self.assertEqual(result.returncode, 1)
        self.assertIn('larger than 819 KiB of CSV text', result.stderr)
        result = run('eval', self.set, '--input', self.csv, '--output', self.dir.path('o.csv'),
                     '--group-by', 'q', '--threads', '8', *budget)
        self.assertEqual(result.returncode, 0, result.stderr)
        # An endless first line, a record longer than the budget allows.
        long_line = self.dir.write('long.csv', 'x' * 200000 + '\n1\n')
        for extra in ((), ('--group-by', 'x')):
            result = run('eval', self.set, '--input', long_line, '--output',
                         self.dir.path('o.csv'), *budget, *extra)
            self.assertEqual(result.returncode, 1, extra)
        self.assertIn('longer than 102 KiB', result.stderr)
        # A pipe that never ends: refused once the budget is reached.
        os.remove(self.dir.path('o.csv'))
        writer = subprocess.Popen(['yes', 'q,x'], stdout=subprocess.PIPE)
        try:
            for extra in ((), ('--group-by', 'q')):
                result = subprocess.run(
                    [CALCJIT, 'eval', self.set, '--input', '/dev/stdin', '--output',
                     self.dir.path('o.csv'), *budget, *extra],
                    stdin=writer.stdout, capture_output=True, text=True, timeout=60)
                self.assertEqual(result.returncode, 1, extra)
        finally:
            writer.kill()
            writer.wait()
        self.assertFalse(os.path.exists(self.dir.path('o.csv')))
        # Sizes: units, and a minimum.
        self.assertEqual(self.eval('--memory-budget', '1G').returncode, 0)
        result = self.eval('--memory-budget', '1M')
        self.assertEqual(result.returncode, 1)
        self.assertIn('--memory-budget', result.stderr)

    def test_devices_are_no_inputs(self):
        # Regression (issue 26, cause 7): /dev/zero and /dev/urandom were read
        # until memory ran out. Devices are refused at once, as set files,
        # CSV inputs and models; a pipe is read.
        for device in ('/dev/zero', '/dev/urandom', '/dev/null'):
            for extra in ((), ('--group-by', 'q')):
                result = run('eval', self.set, '--input', device, '--output',
                             self.dir.path('o.csv'), *extra)
                self.assertEqual(result.returncode, 1, device)
                self.assertIn('is a device, not a CSV file', result.stderr)
            result = run('check', device, '--input-format', 'calc')
            self.assertEqual(result.returncode, 1, device)
            self.assertIn('is a device, not a feature set file', result.stderr)
            result = run('explain', self.set, 'f', '--input', device, '--row', '1')
            self.assertIn('is a device', result.stderr)


class DemoTest(unittest.TestCase):
    def test_demo_runs(self):
        result = run('demo', '--items', '300', '--repetitions', '2')
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn('reference', result.stdout)
        # The bundled ranker on the features: timed per backend against the
        # budget, its scores the reference's bits on every backend.
        ranker = result.stdout[result.stdout.index('The bundled ranker'):]
        self.assertIn('rank_score', ranker)
        self.assertNotIn('DIFFER', ranker)
        self.assertNotIn('failed', ranker)
        rows = [line for line in ranker.splitlines()
                if line.split()[:1] in (['vm'], ['jit'], ['reference'])
                and 'not available' not in line]
        self.assertGreaterEqual(len(rows), 2, ranker)
        for row in rows:
            self.assertRegex(row, r' \d+% +(the reference|bit-identical)$')


if __name__ == '__main__':
    CALCJIT = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
