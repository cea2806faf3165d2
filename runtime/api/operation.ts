// The operations the API offers on a resource: the verb of a request (Action, as discovery and
// authorization name it) and the named handler a generated route binds (HandlerName). The
// generators' model and the HTTP layer share them; neither owns them.

export type HandlerName =
  | 'get'
  | 'list'
  | 'watch'
  | 'create'
  | 'update'
  | 'patch'
  | 'delete'
  | 'deleteCollection'
  | 'getStatus'
  | 'updateStatus'
  | 'patchStatus';

export type Action = 'get' | 'list' | 'watch' | 'watchlist' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection';
