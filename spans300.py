import bench.llm_fanout as b, tests.fakes.openai_server as o, time
orig = o.FakeOpenAI.__exit__
def ex(self, *a):
    t0 = min(s[0] for s in self.spans)
    for a_, b_, r in sorted(self.spans, key=lambda s: s[0]):
        d = o.data_block(r, "engine_features")
        print(f"{a_-t0:7.3f} {b_-t0:7.3f} {d['number'] if d else 'narr'}")
    return orig(self, *a)
o.FakeOpenAI.__exit__ = ex
print(b.one_run(4, "2026-03-03", "2026-05-10", 2.0))
