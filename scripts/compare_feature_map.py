"""advmath's `features_xie2024` against the authors' own FeatureMap, cell by cell.

Usage: compare_feature_map.py AUTHORS_GENERATION_DIR TABLES_DIR XIE_DATA_DIR

AUTHORS_GENERATION_DIR is the `generation/` folder of ruoyuxie/adversarial_mwps_generation (not part of this
project; needs `pip install primefac`). TABLES_DIR holds the Xie release ingested with `--programs given`, its
variants and `features --set xie2024`; XIE_DATA_DIR is `../shared/data/xie2024`. For every problem the authors'
`ProbSolveTreeVisitor` parses the release's program against the question; each variant's numbers are then set on
its nodes as `question_parse.process_features` sets them, and `obtain_features(prefix="final")` gives the row,
compared with advmath's (names lower-cased, `_val_-k` written `_val_negk`). Prints the cells compared and equal,
the columns and problems that differ, and the problems the authors' code cannot parse.
"""
import ast, json, sys, os, collections
authors, tables, xie = sys.argv[1:4]
sys.argv = ['x', '--original_question_file', 'unused']
sys.path.insert(0, authors)
import util
from code_visitor import ProbSolveTreeVisitor
from feature_map import FeatureMap
import pyarrow.dataset as ds

feats = ds.dataset(f'{tables}/features_xie2024', format='parquet', partitioning='hive').to_table()
names = [f.name for f in feats.schema if str(f.type) == 'double']
fe = {r['variant_id']: r for r in feats.to_pylist()}
var = ds.dataset(f'{tables}/variants', format='parquet', partitioning='hive').to_table(
    columns=['variant_id', 'problem_id', 'question', 'attack']).to_pylist()
probs = ds.dataset(f'{tables}/problems', format='parquet').to_table(
    columns=['problem_id', 'dataset', 'source_index', 'status']).to_pylist()
by_problem = collections.defaultdict(list)
for v in var:
    by_problem[v['problem_id']].append(v)

def our_name(k):
    k = k.lower()
    return k.replace('_val_-', '_val_neg')

cells = equal = 0
rows = 0
bad_cols = collections.Counter()
bad_problems = collections.Counter()
failed = []
examples = []
for p in probs:
    if p['problem_id'] not in by_problem:
        continue
    folder = 'gsm8k' if 'gsm8k' in p['dataset'] else 'multiarith'
    base = os.path.join(xie, folder)
    samples = json.load(open(f'{base}/200_samples.json'))
    s = samples[int(p['source_index'])]
    code = open(f"{base}/code/{s['index']}.py").read()
    try:
        visitor = ProbSolveTreeVisitor(s['question'], util.to_num(s['final_ans']))
        visitor.visit(ast.parse(code))
        answer = visitor.get_answer_node()
    except Exception as e:
        failed.append((p['problem_id'], repr(e)[:80]))
        continue
    for v in by_problem[p['problem_id']]:
        nums, _ = util.get_all_num_from_string(v['question'])
        for changed, node in zip(nums, visitor.assign_node):
            if node is not None:
                node.set_val(changed)
        fm = FeatureMap(add_new=True)
        fm.feature_map = {}
        try:
            answer.obtain_features(fm, prefix='final')
        except Exception as e:
            failed.append((v['variant_id'], repr(e)[:80]))
            continue
        theirs = collections.Counter({our_name(k): val for k, val in fm.feature_map.items()})
        ours = fe[v['variant_id']]
        unknown = set(theirs) - set(names)
        rows += 1
        for n in names:
            cells += 1
            if abs(ours[n] - theirs.get(n, 0)) < 1e-9:
                equal += 1
            else:
                bad_cols[n] += 1
                bad_problems[p['problem_id']] += 1
                if len(examples) < 30:
                    examples.append((v['variant_id'], n, ours[n], theirs.get(n, 0)))
        for u in unknown:
            bad_cols['(authors only) ' + u] += 1
print(json.dumps({'rows': rows, 'cells': cells, 'equal': equal, 'failed': len(failed)}))
print('columns differing:', bad_cols.most_common(20))
print('problems differing:', len(bad_problems), bad_problems.most_common(50))
print('failures:', failed[:10])
for e in examples: print(e)
