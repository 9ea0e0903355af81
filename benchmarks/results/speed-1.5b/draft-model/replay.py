"""Ask recorded 1.5B step prompts again, with and without the 0.5B drafting; one slot, one at a time.

Usage: replay.py none|draft CALLS [DRAFT_TOKENS], from the repository root. The prompts are the
first-trial step prompts of the whole-suite run's first 30 episodes (the file grows as the run
goes on), CALLS of them spread evenly; the replies are written to replies-MODE.json here."""
import json, sys, time
from pathlib import Path
import xllamacpp
from webwise.llm.local import LocalModel, Tuning
from webwise.llm.base import ChatRequest
from webwise.agent import STOP, Settings
from webwise import model_assets

mode = sys.argv[1]; n = int(sys.argv[2]); nmax = int(sys.argv[3]) if len(sys.argv) > 3 else 8
rows = [json.loads(l) for l in open("benchmarks/results/suite-1.5b/ww-none-t3/results.jsonl")][:30]
reqs = []
for r in rows:
    for t in r['trace']:
        if t['source'] == 'model' and not t['repeats'] and t['reply'] and t['trial'] == 0:
            reqs.append((r['task'], t['prompt'], t['reply']))
reqs = reqs[:: max(1, len(reqs)//n)][:n]

orig = xllamacpp.CommonParams
def patched():
    p = orig()
    if mode == 'draft':
        p.speculative.types = [xllamacpp.common_speculative_type.COMMON_SPECULATIVE_TYPE_DRAFT_SIMPLE]
        p.speculative.draft.mparams.path = str(model_assets.require_model('0.5b'))
        p.speculative.draft.n_max = nmax
        p.speculative.draft.cpuparams.n_threads = 2
        p.speculative.draft.cpuparams_batch.n_threads = 2
    return p
xllamacpp.CommonParams = patched
m = LocalModel(model_assets.require_model('1.5b'), 'local:1.5b', tuning=Tuning(slots=1))
texts = []; same = 0; gen = gms = pms = 0; t0 = time.perf_counter(); dn = da = 0
for task, prompt, reply in reqs:
    rep = m.complete(ChatRequest(prompt, temperature=0.0, max_tokens=Settings().max_tokens, stop=STOP))
    same += rep.text.strip() == reply.strip().removesuffix('```').strip() or rep.text.strip() == reply.strip()
    texts.append(rep.text)
    e = rep.extra; gen += rep.completion_tokens; gms += e['generate_ms']; pms += e['prompt_ms']
    dn += e['draft_tokens']; da += e['draft_accepted']
    print(task, rep.prompt_tokens, e['cached_prompt_tokens'], rep.completion_tokens, round(e['generate_ms']), round(e['prompt_ms']), e['draft_tokens'], e['draft_accepted'], repr(rep.text[:60]), flush=True)
print(mode, nmax, 'calls', len(reqs), 'same', same, 'gen tok', gen, 'gen s', round(gms/1000,1), 'tok/s', round(gen/(gms/1000),2), 'prompt s', round(pms/1000,1), 'wall', round(time.perf_counter()-t0,1), 'draft', dn, da)
json.dump(texts, open(Path(__file__).with_name(f'replies-{mode}.json'), 'w'))
