-- A player's turn of one part, the whole text, keeps only that part's type in the transcript
-- (`"dialogue"`, engine/turn/stored-segments.ts): its parts' JSON copied the text a second time.
UPDATE transcript SET segments = json_quote(json_extract(segments, '$[0].type'))
  WHERE role = 'user' AND json_valid(segments) AND json_type(segments) = 'array'
    AND json_array_length(segments) = 1 AND json_extract(segments, '$[0].text') = text;
