-- gradedesk store.db: the only DDL. core/store/connection.py applies it and records the schema version in
-- PRAGMA user_version. The CREATE statements describe the newest tables; an upgrade of an older store lives in a
-- section `-- migrate to N` at the end (see core/store/connection.py), and the highest N is the schema version.
-- Conventions: times are UTC ISO-8601 text; lists and objects are JSON text; every token count names its tokenizer.
-- Human grades are append-only events; the current grade is derived (view current_human_grades).

-- Indexed repositories --------------------------------------------------------------------------------------------------
CREATE TABLE IF NOT EXISTS repos (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    root        TEXT NOT NULL,             -- absolute path at index time
    git_commit  TEXT,                      -- HEAD of the indexed repository, when it is a git checkout
    tokenizer   TEXT NOT NULL,             -- tokenizer id of every chunk token_count
    indexed_at  TEXT NOT NULL,
    index_version INTEGER NOT NULL DEFAULT 1 -- bumped by every index run that changed chunks (keys retrieval caches)
);

CREATE TABLE IF NOT EXISTS files (
    id          INTEGER PRIMARY KEY,
    repo_id     INTEGER NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
    path        TEXT NOT NULL,             -- relative to the repo root, '/' separated
    size        INTEGER NOT NULL,
    mtime_ns    INTEGER NOT NULL,
    sha256      TEXT NOT NULL,             -- of the bytes; unchanged files are not re-chunked
    language    TEXT,
    UNIQUE (repo_id, path)
);

CREATE TABLE IF NOT EXISTS chunks (
    chunk_id     TEXT PRIMARY KEY,         -- stable across runs: hash of repo, path, kind, symbol, content
    repo_id      INTEGER NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
    file_id      INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    file_path    TEXT NOT NULL,
    start_line   INTEGER NOT NULL,
    end_line     INTEGER NOT NULL,
    symbol_name  TEXT,                     -- qualified, e.g. Class.method; NULL for windows and module chunks
    kind         TEXT NOT NULL,            -- function, class, method, module, section, window
    content_hash TEXT NOT NULL,            -- sha256 of normalized text (see core/bundle.content_hash)
    text         TEXT NOT NULL,
    token_count  INTEGER NOT NULL,
    tokenizer    TEXT NOT NULL,
    CHECK (start_line >= 1 AND end_line >= start_line)
);
CREATE INDEX IF NOT EXISTS chunks_repo_path ON chunks (repo_id, file_path);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks (file_id);
CREATE INDEX IF NOT EXISTS chunks_symbol ON chunks (repo_id, symbol_name);

-- What each Python symbol calls and imports, so "what calls X" can be answered from the index.
CREATE TABLE IF NOT EXISTS symbol_refs (
    chunk_id  TEXT NOT NULL REFERENCES chunks(chunk_id) ON DELETE CASCADE,
    repo_id   INTEGER NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
    ref_kind  TEXT NOT NULL CHECK (ref_kind IN ('call', 'import')),
    name      TEXT NOT NULL,               -- the last dotted part, e.g. "compile_context"
    full_name TEXT,                        -- as written, e.g. "core.compile.compile_context"
    line      INTEGER
);
CREATE INDEX IF NOT EXISTS symbol_refs_name ON symbol_refs (repo_id, name, ref_kind);
CREATE INDEX IF NOT EXISTS symbol_refs_chunk ON symbol_refs (chunk_id);

-- BM25 postings of a repo's chunks (core/bm25.SparseBM25 as numpy npz), rebuilt in the transaction that changes chunks,
-- so retrieval loads them instead of re-tokenizing every chunk.
CREATE TABLE IF NOT EXISTS search_index (
    repo_id       INTEGER PRIMARY KEY REFERENCES repos(id) ON DELETE CASCADE,
    index_version INTEGER NOT NULL,        -- repos.index_version it was built for
    analyzer      TEXT NOT NULL,           -- term analyzer, e.g. codetokens/1
    built_at      TEXT NOT NULL,
    doc_rowids    BLOB NOT NULL,           -- int64 chunks.rowid per BM25 document, in document order
    data          BLOB NOT NULL
);

-- Chunk embeddings for vector retrieval (`gradedesk index --embeddings-model M`). A vector is keyed by the model, the
-- prefix style and the content_hash of the exact text embedded (path, symbol and the chunk's text, cut to max_chars),
-- so re-indexing embeds only new or changed chunks, and the same text in two repositories is embedded once.
CREATE TABLE IF NOT EXISTS chunk_vectors (
    model        TEXT NOT NULL,            -- the embeddings model name, as sent to the endpoint
    prefixes     TEXT NOT NULL,            -- query/passage prefix style: none, input-type, e5, bge, nomic
    content_hash TEXT NOT NULL,            -- of the embedded text (core/text/hashing.content_hash)
    dim          INTEGER NOT NULL,
    vector       BLOB NOT NULL,            -- float32, L2-normalised
    PRIMARY KEY (model, prefixes, content_hash)
) WITHOUT ROWID;

-- Which repositories were embedded with which model, and how: retrieval reads the settings back, so a query is
-- embedded the way the chunks were.
CREATE TABLE IF NOT EXISTS repo_embeddings (
    repo_id       INTEGER NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
    model         TEXT NOT NULL,
    prefixes      TEXT NOT NULL,
    max_chars     INTEGER NOT NULL,        -- of chunk text embedded per chunk
    dim           INTEGER NOT NULL,
    endpoint_host TEXT,                    -- host only; keys are never stored
    embedded_at   TEXT NOT NULL,           -- of the last index run that embedded (keys retrieval caches)
    PRIMARY KEY (repo_id, model)
);

-- Benchmark questions ------------------------------------------------------------------------------------------------
CREATE TABLE IF NOT EXISTS questions (
    id               INTEGER PRIMARY KEY,
    benchmark        TEXT NOT NULL,        -- where the questions came from (file stem or import source)
    question_id      TEXT NOT NULL,        -- the id in the benchmark file
    question         TEXT NOT NULL,
    category         TEXT NOT NULL,
    gold_answer      TEXT,
    expected_files   TEXT,                 -- JSON list or NULL (unlabelled)
    expected_symbols TEXT,                 -- JSON list or NULL (unlabelled)
    created_at       TEXT NOT NULL,
    UNIQUE (benchmark, question_id)
);

-- Versioned texts: answer prompts and judge rubrics ------------------------------------------------------------------
CREATE TABLE IF NOT EXISTS prompts (
    name       TEXT NOT NULL,              -- e.g. raw_system, bundle_system
    version    TEXT NOT NULL,
    text       TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (name, version)
);

CREATE TABLE IF NOT EXISTS rubrics (
    version    TEXT PRIMARY KEY,           -- name/hash: the rubric's name and 8 hex of its normal form's sha256
    text       TEXT NOT NULL,              -- the normal form of the rubric file (core/grading/rubric_format.py)
    created_at TEXT NOT NULL,
    kind       TEXT NOT NULL DEFAULT 'grade' CHECK (kind IN ('grade', 'pairwise')) -- a grade or a pairwise rubric
);

-- Runs and answers -----------------------------------------------------------------------------------------------------
CREATE TABLE IF NOT EXISTS runs (
    id               INTEGER PRIMARY KEY,
    created_at       TEXT NOT NULL,
    source           TEXT NOT NULL DEFAULT 'run' CHECK (source IN ('run', 'import')),
    label            TEXT,
    provider         TEXT NOT NULL,        -- "openai-compatible" or "offline-extractive", named as what it is
    model            TEXT,
    endpoint_host    TEXT,                 -- host only; keys are never stored
    repo_id          INTEGER REFERENCES repos(id) ON DELETE SET NULL,
    repo_commit      TEXT,
    benchmark        TEXT,
    budgets          TEXT NOT NULL DEFAULT '[]', -- JSON list of token budgets of the bundled answers
    primary_budget   INTEGER,              -- the budget whose bundled answer the desk shows beside raw
    raw_k            INTEGER,
    tokenizer        TEXT,
    compiler_version TEXT,
    prompt_versions  TEXT NOT NULL DEFAULT '{}', -- JSON {prompt name: version}
    order_seed       INTEGER NOT NULL,     -- seeds the left/right shuffle in the desk
    config           TEXT NOT NULL DEFAULT '{}'  -- JSON: everything else needed to reproduce the run
);

CREATE TABLE IF NOT EXISTS bundles (
    id                        INTEGER PRIMARY KEY,
    question                  TEXT NOT NULL,
    question_type             TEXT NOT NULL,
    total_tokens              INTEGER NOT NULL,
    token_budget              INTEGER NOT NULL,
    retrieval_strategies_used TEXT NOT NULL, -- JSON list
    coverage_notes            TEXT NOT NULL, -- JSON list
    created_at                TEXT NOT NULL,
    compiler_version          TEXT NOT NULL,
    warnings                  TEXT NOT NULL, -- JSON list
    tokenizer                 TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS bundle_snippets (
    bundle_id        INTEGER NOT NULL REFERENCES bundles(id) ON DELETE CASCADE,
    position         INTEGER NOT NULL,     -- 1-based, the [Evidence i] label
    chunk_id         TEXT NOT NULL,
    content_hash     TEXT NOT NULL,
    text             TEXT NOT NULL,
    token_count      INTEGER NOT NULL,
    file_path        TEXT NOT NULL,
    start_line       INTEGER NOT NULL,
    end_line         INTEGER NOT NULL,
    symbol_name      TEXT,
    retrieval_method TEXT NOT NULL,
    relevance_score  REAL NOT NULL,
    retrieval_rank   INTEGER NOT NULL,
    selection_reason TEXT,
    evidence_role    TEXT,
    PRIMARY KEY (bundle_id, position)
);

CREATE TABLE IF NOT EXISTS answers (
    id             INTEGER PRIMARY KEY,
    run_id         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    question_pk    INTEGER NOT NULL REFERENCES questions(id),
    method         TEXT NOT NULL CHECK (method IN ('raw', 'bundle')),
    budget         INTEGER NOT NULL DEFAULT 0, -- token budget of a bundled answer; 0 for raw
    status         TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ok', 'error')),
    text           TEXT,
    evidence       TEXT,                   -- JSON list of the raw hits shown to the model (raw answers, imports)
    evidence_files TEXT,                   -- JSON list of file paths in the evidence, in rank order
    bundle_id      INTEGER REFERENCES bundles(id),
    prompt_version TEXT,
    tokens_in      INTEGER,
    tokens_out     INTEGER,
    tokens_counted INTEGER NOT NULL DEFAULT 0, -- 1 when counted with tiktoken because the server gave no usage
    latency_ms     REAL,
    cost_usd       REAL,
    error          TEXT,                   -- the provider's message, secrets redacted
    finish_reason  TEXT,                   -- why generation stopped: stop, length (cut at max_tokens: truncated), ...
    reasoning      TEXT,                   -- a reasoning model's thinking, kept apart from the answer text
    attempts       INTEGER NOT NULL DEFAULT 0,
    created_at     TEXT NOT NULL,
    answered_at    TEXT,
    UNIQUE (run_id, question_pk, method, budget)
);
CREATE INDEX IF NOT EXISTS answers_question ON answers (question_pk);
CREATE INDEX IF NOT EXISTS answers_run_status ON answers (run_id, status);

-- Where an answer read from an application's traces or an eval tool's log came from (`gradedesk import-traces`:
-- Phoenix, a Langfuse trace export; `import-inspect`: an Inspect AI log; `import-promptfoo`: a promptfoo results file):
-- the trace and the span (Phoenix) or observation (Langfuse) holding the answer, or the log's sample, so people's and
-- the judge's grades can go back onto it. A run of answers made here has no rows.
CREATE TABLE IF NOT EXISTS answer_traces (
    answer_id  INTEGER PRIMARY KEY REFERENCES answers(id) ON DELETE CASCADE,
    source     TEXT NOT NULL CHECK (source IN ('phoenix', 'langfuse', 'inspect', 'promptfoo')),
    endpoint   TEXT,                       -- the server's base URL it was read from; NULL for an export file; the
                                           -- log's absolute path for an Inspect log or promptfoo results file
    project    TEXT NOT NULL,              -- the project it was read from (the eval's task, promptfoo's description)
    side       TEXT NOT NULL,              -- the side label the desk shows instead of raw/bundled
    trace_id   TEXT NOT NULL,              -- an eval log's sample key: eval id, sample id, epoch (Inspect)
    span_id    TEXT NOT NULL,              -- the LLM span (Phoenix), generation observation (Langfuse), sample id
    content    TEXT                        -- a hash of what was read (question, answer), to tell a log that changed
);
CREATE INDEX IF NOT EXISTS answer_traces_trace ON answer_traces (trace_id);

-- Machine grades: the LLM judge and the offline rule grader, never confused -----------------------------------------
CREATE TABLE IF NOT EXISTS auto_grades (
    id             INTEGER PRIMARY KEY,
    answer_id      INTEGER NOT NULL REFERENCES answers(id) ON DELETE CASCADE,
    grader_kind    TEXT NOT NULL CHECK (grader_kind IN ('judge', 'rule', 'imported')), -- imported: came with a run log
    grader_model   TEXT,                   -- judge model; rule grader name and version for rules
    rubric_version TEXT REFERENCES rubrics(version),
    repeat_index   INTEGER NOT NULL DEFAULT 0, -- --repeat N grades the same answer N times
    grade          TEXT NOT NULL CHECK (grade IN ('fully_correct', 'partially_correct', 'unsupported', 'wrong')),
    failure_label  TEXT,
    confidence     REAL,
    reasoning      TEXT,
    raw_response   TEXT,
    tokens_in      INTEGER,
    tokens_out     INTEGER,
    cost_usd       REAL,
    latency_ms     REAL,
    finish_reason  TEXT,                   -- of the judge's reply; "length" means it was cut at max_tokens
    gold_hash      TEXT,                   -- gold_hash() of the gold answer and labels the grade was made against
    created_at     TEXT NOT NULL,
    UNIQUE (answer_id, grader_kind, grader_model, rubric_version, repeat_index)
);
CREATE INDEX IF NOT EXISTS auto_grades_answer ON auto_grades (answer_id, grader_kind);

-- Every machine grade records which gold answer and labels it was made against (gold_hash is an SQL function the
-- store registers on each connection: core/store/gold.py). A grade whose gold_hash differs from its question's current
-- one is stale: the gold was corrected since, and grade-offline / judge grade it again.
CREATE TRIGGER IF NOT EXISTS auto_grades_gold_hash AFTER INSERT ON auto_grades WHEN NEW.gold_hash IS NULL
BEGIN
    UPDATE auto_grades SET gold_hash = (
        SELECT gold_hash(q.gold_answer, q.expected_files, q.expected_symbols)
        FROM answers a JOIN questions q ON q.id = a.question_pk WHERE a.id = NEW.answer_id)
    WHERE id = NEW.id;
END;

-- Numeric scores of an answer: retrieval evals, faithfulness, relevance; each with the method that made it.
CREATE TABLE IF NOT EXISTS answer_scores (
    answer_id  INTEGER NOT NULL REFERENCES answers(id) ON DELETE CASCADE,
    metric     TEXT NOT NULL,              -- file_precision, file_recall, symbol_recall, context_precision, ...
    method     TEXT NOT NULL,              -- e.g. id-based, llm:<model>, offline-rapidfuzz
    value      REAL,                       -- NULL when not defined (e.g. unlabelled); detail says why
    detail     TEXT,                       -- JSON
    created_at TEXT NOT NULL,
    PRIMARY KEY (answer_id, metric, method)
);

-- An answer's claims and what each cites (core/grading/claims.py), computed once from its text and evidence: the counts
-- for summaries, the claims themselves for the desk's claim mode. Recomputed when the splitter version changes.
CREATE TABLE IF NOT EXISTS answer_claims (
    answer_id   INTEGER PRIMARY KEY REFERENCES answers(id) ON DELETE CASCADE,
    splitter    TEXT NOT NULL,             -- version of the splitting and citation rules, e.g. claims/1
    claims      INTEGER NOT NULL,          -- how many claims the answer makes
    cited       INTEGER NOT NULL,          -- claims with at least one citation (valid or not)
    citations   INTEGER NOT NULL,          -- citations found ([Evidence i] labels, File: path, path:line)
    invalid     INTEGER NOT NULL,          -- citations to a label, file or lines that are not in the evidence
    detail      TEXT NOT NULL,             -- JSON list of claims: text, kind, span, citations and what they resolve to
    computed_at TEXT NOT NULL
);

-- People's grades: append-only events ----------------------------------------------------------------------------------
CREATE TABLE IF NOT EXISTS human_grades (
    id             INTEGER PRIMARY KEY,
    uuid           TEXT NOT NULL UNIQUE,   -- stable across stores, so merging is idempotent
    answer_id      INTEGER NOT NULL REFERENCES answers(id) ON DELETE CASCADE,
    grader         TEXT NOT NULL,
    action         TEXT NOT NULL CHECK (action IN ('set', 'undo')),
    undoes_uuid    TEXT,                   -- for action 'undo': the event it takes back
    grade          TEXT CHECK (grade IN ('fully_correct', 'partially_correct', 'unsupported', 'wrong')),
    failure_label  TEXT,
    correctness    INTEGER,                -- the four dimensions, 1-5
    grounding      INTEGER,
    completeness   INTEGER,
    conciseness    INTEGER,
    note           TEXT,
    judge_visible  INTEGER NOT NULL DEFAULT 0, -- was the judge's grade on screen when this was saved
    mode           TEXT NOT NULL DEFAULT 'blind' CHECK (mode IN ('blind', 'open', 'recheck')),
    is_revision    INTEGER NOT NULL DEFAULT 0, -- a change made after the judge was revealed
    rubric_version TEXT,
    created_at     TEXT NOT NULL,
    -- how the person came to this item: its estimates weigh it accordingly (core/agreement/samples.py)
    selection      TEXT CHECK (selection IN ('question_order', 'sampled', 'filter', 'jump', 'recheck', 'imported')),
    selection_probability REAL,             -- for 'sampled': the item's probability in the draw that brought it
    machine_kind   TEXT,                   -- the machine grader on the desk (shown, or hidden until this was saved):
    machine_model  TEXT,                   -- its kind, model and rubric version; `agree` compares with it
    machine_rubric TEXT,
    budget         INTEGER                 -- the budget of the bundled answer on the desk (for a bundled answer, its
                                           -- own); NULL: not shown beside one (imports)
);
CREATE INDEX IF NOT EXISTS human_grades_answer ON human_grades (answer_id, grader, id);
CREATE INDEX IF NOT EXISTS human_grades_grader ON human_grades (grader, id);
CREATE INDEX IF NOT EXISTS human_grades_undoes ON human_grades (undoes_uuid);

-- A person's marks on an answer's claims (the desk's claim mode): append-only events like human_grades. A mark names
-- the claim by its place and its text; it applies while the answer's claim at that place has that text.
CREATE TABLE IF NOT EXISTS claim_marks (
    id              INTEGER PRIMARY KEY,
    uuid            TEXT NOT NULL UNIQUE,   -- stable across stores, so merging is idempotent
    answer_id       INTEGER NOT NULL REFERENCES answers(id) ON DELETE CASCADE,
    grader          TEXT NOT NULL,
    claim_index     INTEGER NOT NULL,       -- 1-based place in answer_claims.detail
    claim_text      TEXT NOT NULL,
    action          TEXT NOT NULL CHECK (action IN ('set', 'undo')),
    undoes_uuid     TEXT,                   -- for action 'undo': the event it takes back
    mark            TEXT CHECK (mark IN ('supported', 'miscited', 'unsupported', 'not_claim')),
    scorers_visible INTEGER NOT NULL DEFAULT 0, -- were the machine faithfulness verdicts on screen when this was saved
    created_at      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS claim_marks_answer ON claim_marks (answer_id, grader, claim_index, id);
CREATE INDEX IF NOT EXISTS claim_marks_undoes ON claim_marks (undoes_uuid);

-- Which of the two answers of a question a person preferred: append-only events like human_grades (an `undo` names the
-- event it takes back and repeats its preferred and left_method). Each says what was on screen when it was saved and
-- how the person came to the question.
CREATE TABLE IF NOT EXISTS human_preferences (
    id          INTEGER PRIMARY KEY,
    uuid        TEXT NOT NULL UNIQUE,
    run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    question_pk INTEGER NOT NULL REFERENCES questions(id),
    grader      TEXT NOT NULL,
    preferred   TEXT NOT NULL CHECK (preferred IN ('raw', 'bundle', 'tie')),
    left_method TEXT NOT NULL CHECK (left_method IN ('raw', 'bundle')),
    created_at  TEXT NOT NULL,
    action      TEXT NOT NULL DEFAULT 'set' CHECK (action IN ('set', 'undo')),
    undoes_uuid TEXT,                   -- for action 'undo': the event it takes back
    judge_visible INTEGER,              -- was a machine grade of either answer on screen; NULL: saved before it was
                                        -- recorded
    selection   TEXT CHECK (selection IN ('question_order', 'sampled', 'filter', 'jump', 'recheck', 'imported')),
    selection_probability REAL,         -- for 'sampled': the question's probability in the draw that brought it
    budget      INTEGER                 -- the budget of the bundled answer compared (raw against bundle @ budget)
);
CREATE INDEX IF NOT EXISTS human_preferences_q ON human_preferences (run_id, question_pk, grader, id);
CREATE INDEX IF NOT EXISTS human_preferences_undoes ON human_preferences (undoes_uuid);

-- A person's flag on an item (a question of a run) whose benchmark entry needs fixing: a wrong gold answer, an
-- ambiguous question, or another reason in the note. Events like human_grades: a flag is taken back by an 'undo'
-- event naming it. A question someone flags is left out of `agree`'s figures; `gradedesk questions flags` lists them.
CREATE TABLE IF NOT EXISTS item_flags (
    id            INTEGER PRIMARY KEY,
    uuid          TEXT NOT NULL UNIQUE,    -- stable across stores, so merging is idempotent
    run_id        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    question_pk   INTEGER NOT NULL REFERENCES questions(id),
    grader        TEXT NOT NULL,
    action        TEXT NOT NULL CHECK (action IN ('set', 'undo')),
    undoes_uuid   TEXT,                    -- for action 'undo': the flag it takes back
    reason        TEXT CHECK (reason IN ('bad_gold', 'ambiguous', 'other')), -- an undo repeats the one taken back
    note          TEXT,
    judge_visible INTEGER NOT NULL DEFAULT 0, -- was a machine grade of the item on screen when this was saved
    created_at    TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS item_flags_q ON item_flags (run_id, question_pk, grader, id);
CREATE INDEX IF NOT EXISTS item_flags_undoes ON item_flags (undoes_uuid);

-- The judge's pairwise verdicts (gradedesk judge --pairwise): a question's raw and bundled answers (at one budget)
-- shown together as Answer 1 and Answer 2, each order asked, each `--repeats` times. One row a reply (or a failed
-- call); what the replies add up to (a consistent verdict, inconsistent, its stability) is core/grading's.
CREATE TABLE IF NOT EXISTS pairwise_verdicts (
    id               INTEGER PRIMARY KEY,
    uuid             TEXT NOT NULL UNIQUE,   -- stable across stores, so merging is idempotent
    question_pk      INTEGER NOT NULL REFERENCES questions(id),
    budget           INTEGER NOT NULL,       -- the bundled answer's token budget
    bundle_answer_id INTEGER NOT NULL REFERENCES answers(id) ON DELETE CASCADE,
    raw_answer_id    INTEGER NOT NULL REFERENCES answers(id) ON DELETE CASCADE,
    judge_model      TEXT NOT NULL,
    rubric_version   TEXT NOT NULL REFERENCES rubrics(version), -- a pairwise rubric's version
    first_method     TEXT NOT NULL CHECK (first_method IN ('raw', 'bundle')), -- the order: which one was Answer 1
    repeat_index     INTEGER NOT NULL DEFAULT 0,
    winner           TEXT CHECK (winner IN ('1', '2', 'tie')),   -- as replied; NULL: no usable reply (error says why)
    preferred        TEXT CHECK (preferred IN ('raw', 'bundle', 'tie')), -- the winner mapped back to its answer
    reasoning        TEXT,
    raw_response     TEXT,                   -- the reply as it came; NULL when the call failed
    error            TEXT,                   -- why there is no verdict: an unusable reply or a failed call
    finish_reason    TEXT,
    tokens_in        INTEGER,
    tokens_out       INTEGER,
    cost_usd         REAL,
    latency_ms       REAL,
    created_at       TEXT NOT NULL,
    UNIQUE (bundle_answer_id, raw_answer_id, judge_model, rubric_version, first_method, repeat_index)
);
CREATE INDEX IF NOT EXISTS pairwise_verdicts_question ON pairwise_verdicts (question_pk, budget);

-- Judge alignment (gradedesk align): a base rubric, examples taken from people's grades of train questions, a new
-- rubric, and both judged on the test questions. The split is stored, so every figure can be traced to its items.
CREATE TABLE IF NOT EXISTS alignments (
    id           INTEGER PRIMARY KEY,
    run_id       INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    base_version TEXT NOT NULL REFERENCES rubrics(version),
    new_version  TEXT NOT NULL REFERENCES rubrics(version),
    judge_model  TEXT NOT NULL,
    grader       TEXT,                     -- whose grades; NULL: every person's, where the people agree
    seed         INTEGER NOT NULL,
    test_share   REAL NOT NULL,
    report       TEXT NOT NULL,            -- JSON: the figures `gradedesk align` printed
    created_at   TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS alignment_items (
    alignment_id INTEGER NOT NULL REFERENCES alignments(id) ON DELETE CASCADE,
    answer_id    INTEGER NOT NULL REFERENCES answers(id) ON DELETE CASCADE,
    question_pk  INTEGER NOT NULL REFERENCES questions(id),
    side         TEXT NOT NULL CHECK (side IN ('train', 'test')),
    grade        TEXT NOT NULL,            -- the people's grade the judge was compared with
    example      INTEGER NOT NULL DEFAULT 0 CHECK (example = 0 OR side = 'train'), -- 1: an example of the new rubric
    PRIMARY KEY (alignment_id, answer_id)
);

-- The desk's sampler draws ("most useful next"): each draw picks a question of the run with a known probability, from
-- all of them (raw beside the bundled answer at `budget`: the population the draw chose from); a question drawn again
-- counts again without being graded again. These draws are the sampled sample that weighted agreement estimates rest
-- on (core/review/sampler.py, core/agreement/samples.py).
CREATE TABLE IF NOT EXISTS sample_draws (
    id          INTEGER PRIMARY KEY,
    uuid        TEXT NOT NULL UNIQUE,
    run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    grader      TEXT NOT NULL,
    draw_index  INTEGER NOT NULL,          -- 0, 1, ... per (run, grader): with the run's seed it fixes the draw
    question_pk INTEGER NOT NULL REFERENCES questions(id),
    probability REAL NOT NULL,             -- q of this question in this draw
    population  INTEGER NOT NULL,          -- how many questions the draw chose from
    created_at  TEXT NOT NULL,
    budget      INTEGER,                   -- the bundled answers' budget of that population (raw beside bundle @ budget)
    -- the probability that the question was in the set the draw chose from: the person's assigned set (gradedesk
    -- assign: the assignment's inclusion probability times the person's share of the assigned items), 1 for the run
    inclusion_probability REAL NOT NULL DEFAULT 1 CHECK (inclusion_probability > 0 AND inclusion_probability <= 1),
    UNIQUE (run_id, grader, draw_index)
);

-- Who grades what (gradedesk assign): each item (a question of a run) given to `overlap` people. Append-only like
-- people's events: an 'assign' row gives an item to a person, a 'withdraw' row takes an ungraded one back (a re-run
-- moved it to someone else); what is assigned now is every 'assign' that no 'withdraw' names.
CREATE TABLE IF NOT EXISTS assignments (
    id            INTEGER PRIMARY KEY,
    uuid          TEXT NOT NULL UNIQUE,    -- stable across stores, so merging is idempotent
    run_id        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    question_pk   INTEGER NOT NULL REFERENCES questions(id),
    grader        TEXT NOT NULL,
    action        TEXT NOT NULL CHECK (action IN ('assign', 'withdraw')),
    undoes_uuid   TEXT,                    -- for action 'withdraw': the assignment it takes back
    inclusion_probability REAL NOT NULL    -- of the item in the assigned set: 1 for all items, n/N for a sample
        CHECK (inclusion_probability > 0 AND inclusion_probability <= 1),
    overlap       INTEGER NOT NULL,        -- people per item in the plan that made this row
    seed          INTEGER NOT NULL,        -- the plan's seed (sample and tie-breaks)
    created_at    TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS assignments_run ON assignments (run_id, grader, question_pk);
CREATE INDEX IF NOT EXISTS assignments_undoes ON assignments (undoes_uuid);

-- A lead's decisions where the people assigned to an item disagree (gradedesk grade --adjudicate): a grade of one of
-- its answers (method, budget: the answer the desk showed), or the preference between its two answers (method NULL).
-- Its own kind of grade, never a person's: no reader of human_grades sees it, so people-vs-people figures leave it
-- out. Append-only like people's events; `seen` names the people's events (uuids, JSON) on screen when it was decided.
CREATE TABLE IF NOT EXISTS adjudications (
    id            INTEGER PRIMARY KEY,
    uuid          TEXT NOT NULL UNIQUE,    -- stable across stores, so merging is idempotent
    run_id        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    question_pk   INTEGER NOT NULL REFERENCES questions(id),
    method        TEXT CHECK (method IN ('raw', 'bundle')), -- NULL: the decision is the preference
    budget        INTEGER,
    grader        TEXT NOT NULL,           -- the lead who decided
    action        TEXT NOT NULL CHECK (action IN ('set', 'undo')),
    undoes_uuid   TEXT,                    -- for action 'undo': the decision it takes back
    grade         TEXT CHECK (grade IN ('fully_correct', 'partially_correct', 'unsupported', 'wrong')),
    failure_label TEXT,
    note          TEXT,
    preferred     TEXT CHECK (preferred IN ('raw', 'bundle', 'tie')),
    seen          TEXT NOT NULL DEFAULT '[]',
    judge_visible INTEGER NOT NULL DEFAULT 0, -- was the machine grade on screen when this was saved
    created_at    TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS adjudications_q ON adjudications (run_id, question_pk, method, id);
CREATE INDEX IF NOT EXISTS adjudications_undoes ON adjudications (undoes_uuid);

-- Where each grader stopped, so reopening the desk returns there.
-- One live desk per person and store (core/store/leases.py): a desk takes its person's lease, renews it while it runs
-- and frees it when it closes; a lease not renewed by expires_at (UNIX seconds) is free again.
CREATE TABLE IF NOT EXISTS desk_leases (
    person      TEXT PRIMARY KEY,
    holder      TEXT NOT NULL,             -- the desk's random id: it renews and frees only its own lease
    host        TEXT NOT NULL,             -- where that desk runs, told to a second desk under the name
    pid         INTEGER NOT NULL,
    run_id      INTEGER NOT NULL,
    taken_at    REAL NOT NULL,
    expires_at  REAL NOT NULL
);

CREATE TABLE IF NOT EXISTS desk_state (
    grader      TEXT NOT NULL,
    run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    question_pk INTEGER,
    settings    TEXT NOT NULL DEFAULT '{}', -- JSON: filters, judge visibility, hidden method names, the budget shown
    updated_at  TEXT NOT NULL,
    PRIMARY KEY (grader, run_id)
);

-- The current human grade per (answer, grader): the newest 'set' event that no 'undo' took back. Recheck events
-- (mode 'recheck': a blind re-grade measuring self-consistency) are compared with it, never replace it.
CREATE VIEW IF NOT EXISTS current_human_grades AS
SELECT h.*
FROM human_grades h
WHERE h.action = 'set' AND h.mode <> 'recheck'
  AND NOT EXISTS (SELECT 1 FROM human_grades u WHERE u.action = 'undo' AND u.undoes_uuid = h.uuid)
  AND h.id = (
      SELECT max(h2.id) FROM human_grades h2
      WHERE h2.answer_id = h.answer_id AND h2.grader = h.grader AND h2.action = 'set' AND h2.mode <> 'recheck'
        AND NOT EXISTS (SELECT 1 FROM human_grades u2 WHERE u2.action = 'undo' AND u2.undoes_uuid = h2.uuid)
  );

-- The current mark per (answer, grader, claim): the newest 'set' event that no 'undo' took back.
CREATE VIEW IF NOT EXISTS current_claim_marks AS
SELECT m.*
FROM claim_marks m
WHERE m.action = 'set'
  AND NOT EXISTS (SELECT 1 FROM claim_marks u WHERE u.action = 'undo' AND u.undoes_uuid = m.uuid)
  AND m.id = (
      SELECT max(m2.id) FROM claim_marks m2
      WHERE m2.answer_id = m.answer_id AND m2.grader = m.grader AND m2.claim_index = m.claim_index
        AND m2.action = 'set'
        AND NOT EXISTS (SELECT 1 FROM claim_marks u2 WHERE u2.action = 'undo' AND u2.undoes_uuid = m2.uuid)
  );

-- The machine grade shown beside a person's and used for agreement: the LLM judge's when there is one (first repeat,
-- newest), else a grade imported with a run log (the other team's grader), else the rule grader's. grader_kind always
-- says which, so a rule or imported grade is never presented as the judge.
CREATE VIEW IF NOT EXISTS machine_grades AS
SELECT g.*
FROM auto_grades g
WHERE g.id = (
    SELECT g2.id FROM auto_grades g2
    WHERE g2.answer_id = g.answer_id
    ORDER BY CASE g2.grader_kind WHEN 'judge' THEN 0 WHEN 'imported' THEN 1 ELSE 2 END, g2.repeat_index ASC,
             g2.id DESC
    LIMIT 1
);

-- migrate to 2
-- Judge alignment: the tables alignments and alignment_items come from their CREATE statements above. Rubrics are
-- files now: new rows hold a rubric file's normal form; the prompt an older store kept as judge-rubric/1 stays as it was.

-- migrate to 3
-- answer_claims is new: the CREATE statements above make it.

-- migrate to 4
ALTER TABLE human_grades ADD COLUMN selection TEXT
    CHECK (selection IN ('question_order', 'sampled', 'filter', 'jump', 'recheck', 'imported'));
ALTER TABLE human_grades ADD COLUMN selection_probability REAL;
DROP VIEW IF EXISTS current_human_grades;

-- migrate to 5
-- claim_marks and the view current_claim_marks are new: the CREATE statements above make them.

-- migrate to 6
-- Each human grade names the machine grader on the desk when it was saved: `agree` compares with it.
ALTER TABLE human_grades ADD COLUMN machine_kind TEXT;
ALTER TABLE human_grades ADD COLUMN machine_model TEXT;
ALTER TABLE human_grades ADD COLUMN machine_rubric TEXT;

-- migrate to 7
-- Finish reasons and reasoning of answers and verdicts; gold versions of machine grades. Grades made before gold
-- versions were recorded are stamped with their question's current gold: the store cannot tell what the gold was then,
-- and calling every old grade stale would regrade everything for nothing.
ALTER TABLE answers ADD COLUMN finish_reason TEXT;
ALTER TABLE answers ADD COLUMN reasoning TEXT;
ALTER TABLE auto_grades ADD COLUMN finish_reason TEXT;
ALTER TABLE auto_grades ADD COLUMN gold_hash TEXT;
UPDATE auto_grades SET gold_hash = (
    SELECT gold_hash(q.gold_answer, q.expected_files, q.expected_symbols)
    FROM answers a JOIN questions q ON q.id = a.question_pk WHERE a.id = auto_grades.answer_id);

-- migrate to 8
-- Vector retrieval: the tables chunk_vectors and repo_embeddings come from their CREATE statements above.

-- migrate to 9
-- Assignments of items to people (gradedesk assign): the table assignments comes from its CREATE statement above.

-- migrate to 10
-- Answers imported from traces (gradedesk import-traces): answer_traces is new; the CREATE statements above make it.

-- migrate to 11
-- Preferences are events like grades: undoable, and each says what was on screen and how the question was reached.
ALTER TABLE human_preferences ADD COLUMN action TEXT NOT NULL DEFAULT 'set' CHECK (action IN ('set', 'undo'));
ALTER TABLE human_preferences ADD COLUMN undoes_uuid TEXT;
ALTER TABLE human_preferences ADD COLUMN judge_visible INTEGER;
ALTER TABLE human_preferences ADD COLUMN selection TEXT
    CHECK (selection IN ('question_order', 'sampled', 'filter', 'jump', 'recheck', 'imported'));
ALTER TABLE human_preferences ADD COLUMN selection_probability REAL;

-- migrate to 12
-- Flags on items: the table item_flags comes from its CREATE statement above.

-- migrate to 13
-- A team at one desk: draws from a person's assigned set say how likely the question was to be in it; a lead's
-- decisions where assigned people disagree (adjudications) come from the CREATE statement above.
ALTER TABLE sample_draws ADD COLUMN inclusion_probability REAL NOT NULL DEFAULT 1
    CHECK (inclusion_probability > 0 AND inclusion_probability <= 1);

-- migrate to 14
-- Budgets at the desk: the bundled side may be any budget of the run. People's grades, preferences and sampler draws
-- record the budget of the bundled answer on the desk; what an older store holds was made beside the run's largest
-- (its primary budget, else the largest it answered), and a grade of a bundled answer beside its own.
ALTER TABLE human_grades ADD COLUMN budget INTEGER;
ALTER TABLE human_preferences ADD COLUMN budget INTEGER;
ALTER TABLE sample_draws ADD COLUMN budget INTEGER;
DROP VIEW IF EXISTS current_human_grades;
UPDATE human_grades SET budget = (
    SELECT CASE WHEN a.method = 'bundle' THEN a.budget
                ELSE coalesce(r.primary_budget, (SELECT max(b.budget) FROM answers b
                                                 WHERE b.run_id = r.id AND b.method = 'bundle')) END
    FROM answers a JOIN runs r ON r.id = a.run_id WHERE a.id = human_grades.answer_id);
UPDATE human_preferences SET budget = (
    SELECT coalesce(r.primary_budget, (SELECT max(b.budget) FROM answers b WHERE b.run_id = r.id AND b.method = 'bundle'))
    FROM runs r WHERE r.id = human_preferences.run_id);
UPDATE sample_draws SET budget = (
    SELECT coalesce(r.primary_budget, (SELECT max(b.budget) FROM answers b WHERE b.run_id = r.id AND b.method = 'bundle'))
    FROM runs r WHERE r.id = sample_draws.run_id);

-- migrate to 15
-- The judge's pairwise verdicts: the table pairwise_verdicts comes from its CREATE statement above. Rubrics say their
-- kind, so a pairwise rubric is never the current grade rubric; every rubric stored before was a grade rubric.
ALTER TABLE rubrics ADD COLUMN kind TEXT NOT NULL DEFAULT 'grade' CHECK (kind IN ('grade', 'pairwise'));

-- migrate to 16
-- Eval logs in (import-inspect, import-promptfoo): answer_traces takes their sources and a hash of what each sample
-- held. SQLite cannot change a CHECK in place, so the table is copied into its new shape (its index is made again by
-- the CREATE statements above). A store older than answer_traces gets an empty one to copy.
CREATE TABLE IF NOT EXISTS answer_traces (answer_id INTEGER PRIMARY KEY, source TEXT, endpoint TEXT, project TEXT,
                                          side TEXT, trace_id TEXT, span_id TEXT);
CREATE TABLE answer_traces_16 (
    answer_id  INTEGER PRIMARY KEY REFERENCES answers(id) ON DELETE CASCADE,
    source     TEXT NOT NULL CHECK (source IN ('phoenix', 'langfuse', 'inspect', 'promptfoo')),
    endpoint   TEXT,
    project    TEXT NOT NULL,
    side       TEXT NOT NULL,
    trace_id   TEXT NOT NULL,
    span_id    TEXT NOT NULL,
    content    TEXT
);
INSERT INTO answer_traces_16 (answer_id, source, endpoint, project, side, trace_id, span_id)
    SELECT answer_id, source, endpoint, project, side, trace_id, span_id FROM answer_traces;
DROP TABLE answer_traces;
ALTER TABLE answer_traces_16 RENAME TO answer_traces;

-- migrate to 17
-- Desk leases: the table desk_leases comes from its CREATE statement above.
