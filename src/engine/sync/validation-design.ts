/**
 * Refuses any change to an existing document: events are written once and never changed. The one
 * thing allowed is a bare deletion (nothing but the id and revision), which is how a purge ("Delete
 * forever") takes an event off the server; a compaction then drops its body.
 */
export const VALIDATION_DESIGN = {
  _id: '_design/roleplay-engine',
  validate_doc_update:
    "function (newDoc, oldDoc, userCtx) { if (newDoc._id.indexOf('_design/') === 0) return; if (newDoc._deleted) { for (var key in newDoc) { if (key !== '_id' && key !== '_rev' && key !== '_deleted' && key !== '_revisions') throw({ forbidden: 'a deletion carries nothing but its id: ' + newDoc._id }); } return; } if (oldDoc) throw({ forbidden: 'events are never changed: ' + newDoc._id }); }",
};
