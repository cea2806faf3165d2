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
  | 'patchStatus'
  | 'updateFinalize';

export type Action = 'get' | 'list' | 'watch' | 'watchlist' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection';

/** The verbs discovery lists and authorization checks, as upstream names them. */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export const VERBS: readonly Verb[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

/** The verb of each action (a watch of one object and of a list are both `watch`). */
export const VERB_OF_ACTION: Readonly<Record<Action, Verb>> = {
  get: 'get',
  list: 'list',
  watch: 'watch',
  watchlist: 'watch',
  post: 'create',
  put: 'update',
  patch: 'patch',
  delete: 'delete',
  deletecollection: 'deletecollection',
};
