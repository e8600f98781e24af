-- +goose Up
-- A verdict names the judge that wrote it on the wire (issue 32): the
-- local judge is "pixels" now; the rows it wrote as "local" say so too.
UPDATE verdicts SET judge = 'pixels' WHERE judge = 'local';

-- +goose Down
UPDATE verdicts SET judge = 'local' WHERE judge = 'pixels';
