// A fine-tuned model in the page: the fixture models (random BertForSequenceClassification with
// three named labels, BertForTokenClassification, BertForQuestionAnswering) loaded by URL show their
// head's answer as you type, and the other views keep working.

export default async (h) => {
  const { test, newPage, sel, settled, setText, assert, shot, errorText } = h;
  const open = async (name, query = "") => {
    const page = await newPage(`?model=models/fixture/${name}/${query}`);
    await settled(page);
    assert((await errorText(page)) === null, `${name}: ${await errorText(page)}`);
    return page;
  };

  await test("task: a sentence classifier shows every label, a tagger a tag per token, QA the answer span", async () => {
    const cls = await open("task_seqcls", "&text=the+cat+sat");
    const labels = await cls.$$eval(`${sel("task-output")} [data-label]`, (els) => els.map((e) => ({ label: e.dataset.label, prob: Number(e.dataset.prob) })));
    assert(labels.length === 3, `three labels: ${JSON.stringify(labels)}`);
    assert(JSON.stringify(labels.map((l) => l.label).sort()) === JSON.stringify(["negative", "neutral", "positive"]), `id2label names: ${labels.map((l) => l.label)}`);
    for (let i = 1; i < labels.length; i++) assert(labels[i].prob <= labels[i - 1].prob, "most probable first");
    assert(Math.abs(labels.reduce((a, l) => a + l.prob, 0) - 1) < 1e-4, "probabilities sum to 1");
    const heading = await cls.textContent(`section:has(${sel("task-output")}) h2`);
    assert(/fine-tuned head/.test(heading), `section heading: ${heading}`);
    // the other views still answer: tokens and every head's attention
    assert((await cls.$$(sel("heatmap"))).length > 0, "attention heatmaps for a fine-tuned model");
    await setText(cls, "text-input", "the dog ran on the mat");
    const again = await cls.$$eval(`${sel("task-output")} [data-label]`, (els) => els.length);
    assert(again === 3, "updates as you type");
    await shot(cls, "task-classes", `section:has(${sel("task-output")})`);
    await cls.context().close();

    const tag = await open("task_tokcls", "&text=the+cat+sat+on+the+mat");
    const chips = await tag.$$eval(sel("tag-chip"), (els) => els.map((e) => e.dataset.label));
    const tokens = await tag.$$eval(`${sel("tokens")} > *`, (els) => els.length);
    assert(chips.length === tokens, `a tag per token: ${chips.length} of ${tokens}`);
    assert(chips.every((c) => ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"].includes(c)), `tags: ${chips}`);
    await shot(tag, "task-tags", `section:has(${sel("task-output")})`);
    await tag.context().close();

    const qa = await open("task_qa", "&text=where+did+the+cat+sit&pair=the+cat+sat+on+the+mat");
    const span = await qa.$eval(sel("answer-span"), (e) => [Number(e.dataset.start), Number(e.dataset.end), e.querySelector("strong").textContent]);
    const segs = await qa.$$eval(`${sel("tokens")} > *`, (els) => els.map((e) => e.dataset.segment));
    assert(segs[span[0]] === "1" && span[0] <= span[1] && segs[span[1]] === "1", `the span lies in the context: ${span} of ${segs}`);
    assert("the cat sat on the mat".includes(span[2]), `span text: ${span[2]}`);
    const marked = await qa.$$eval(`${sel("task-output")} .piece.answer`, (els) => els.length);
    assert(marked === span[1] - span[0] + 1, `highlighted pieces ${marked}`);
    await shot(qa, "task-answer", `section:has(${sel("task-output")})`);
    await setText(qa, "pair-input", "");
    assert(/second sentence/.test(await qa.textContent(`section:has(${sel("task-output")})`)), "without a context: says where the answer comes from");
    await qa.context().close();
  });
};
