-- Each tool's curated items (SPEC §4.9, GET /api/toolkit/tools/{slug}/items):
-- ready-made directions a director picks from (a lens, a ground, a shape, a
-- face), in the legacy field names (Hebrew titles and notes, English content
-- that rides with a develop). Service-wide, not a house's: no
-- organization_id. Operators add rows; these are the ones the service ships.
-- One portable set for SQLite and PostgreSQL.

-- +goose Up
CREATE TABLE tool_items (
    id          TEXT PRIMARY KEY,
    tool_id     TEXT NOT NULL,
    category    TEXT NOT NULL,
    title_he    TEXT NOT NULL,
    label_he    TEXT NOT NULL,
    content_en  TEXT NOT NULL,
    image_url   TEXT,
    notes_he    TEXT,
    sort_order  INTEGER NOT NULL DEFAULT 0,
    created_at  BIGINT NOT NULL
);
CREATE INDEX tool_items_by_tool ON tool_items (tool_id, sort_order, id);

INSERT INTO tool_items (id, tool_id, category, title_he, label_he, content_en, notes_he, sort_order, created_at) VALUES
('0192f000-0000-7000-8000-000000000101', 'camera-lens', 'lens', 'עדשה רחבה 24 מ״מ', '24 מ״מ', '24mm', 'מרחב וסביבה; עיוות קל בשוליים', 10, 1767225600000),
('0192f000-0000-7000-8000-000000000102', 'camera-lens', 'lens', 'עדשת רחוב 35 מ״מ', '35 מ״מ', '35mm', NULL, 20, 1767225600000),
('0192f000-0000-7000-8000-000000000103', 'camera-lens', 'lens', 'עדשה רגילה 50 מ״מ', '50 מ״מ', '50mm', 'קרוב למבט העין', 30, 1767225600000),
('0192f000-0000-7000-8000-000000000104', 'camera-lens', 'lens', 'עדשת פורטרט 85 מ״מ f/1.4', '85 מ״מ', '85mm f/1.4', 'רקע רך, דחיסה מחמיאה', 40, 1767225600000),
('0192f000-0000-7000-8000-000000000105', 'camera-lens', 'lens', 'טלה 135 מ״מ f/2', '135 מ״מ', '135mm f/2', NULL, 50, 1767225600000),
('0192f000-0000-7000-8000-000000000201', 'packshot', 'ground', 'לבן נקי', 'לבן', 'white', 'לחנויות מקוונות', 10, 1767225600000),
('0192f000-0000-7000-8000-000000000202', 'packshot', 'ground', 'שמנת חמה', 'שמנת', '#f3ede2', NULL, 20, 1767225600000),
('0192f000-0000-7000-8000-000000000203', 'packshot', 'ground', 'אפור סטודיו', 'אפור', '#d9d9d6', NULL, 30, 1767225600000),
('0192f000-0000-7000-8000-000000000204', 'packshot', 'ground', 'שחור עמוק', 'שחור', '#111111', 'לתכשיטים ולעור', 40, 1767225600000),
('0192f000-0000-7000-8000-000000000301', 'reframe', 'shape', 'פוסט מרובע', '1:1', '1:1', NULL, 10, 1767225600000),
('0192f000-0000-7000-8000-000000000302', 'reframe', 'shape', 'פוסט לאורך', '4:5', '4:5', NULL, 20, 1767225600000),
('0192f000-0000-7000-8000-000000000303', 'reframe', 'shape', 'סטורי', '9:16', '9:16', NULL, 30, 1767225600000),
('0192f000-0000-7000-8000-000000000304', 'reframe', 'shape', 'באנר רחב', '16:9', '16:9', NULL, 40, 1767225600000),
('0192f000-0000-7000-8000-000000000401', 'generate-character', 'face', 'דוגמנית אדיטוריאל', 'אדיטוריאל', 'An editorial fashion model in her mid twenties, sharp cheekbones, slicked-back dark hair, neutral expression, soft studio light.', NULL, 10, 1767225600000),
('0192f000-0000-7000-8000-000000000402', 'generate-character', 'face', 'דוגמן מסחרי', 'מסחרי', 'A commercial male model in his early thirties, short textured hair, light stubble, warm open smile, natural daylight.', NULL, 20, 1767225600000),
('0192f000-0000-7000-8000-000000000403', 'generate-character', 'face', 'פנים בוגרות', 'בוגר', 'A silver-haired model in her late fifties, calm confident gaze, minimal makeup, elegant posture, soft window light.', NULL, 30, 1767225600000);

-- +goose Down
DROP TABLE tool_items;
