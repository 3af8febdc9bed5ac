package api

import (
	"context"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/source"
)

// Sources keeps the catalogue sources (source.Service).
type Sources interface {
	Add(ctx context.Context, ns source.NewSource, by string) (source.Source, error)
	List(ctx context.Context) ([]source.Source, error)
	Get(ctx context.Context, name string) (source.Source, error)
	Versions(ctx context.Context, name string) ([]source.Version, error)
	Delete(ctx context.Context, name string) error
	RequestSync(ctx context.Context, name string) error
	Update(ctx context.Context, name string, ch source.Change) (source.Source, error)
}

var _ Sources = (*source.Service)(nil)

func (s *Server) ListSources(ctx context.Context, _ oapi.ListSourcesRequestObject) (oapi.ListSourcesResponseObject, error) {
	list, err := s.Sources.List(ctx)
	if err != nil {
		return nil, err
	}
	items := make([]oapi.Source, 0, len(list))
	for _, src := range list {
		items = append(items, apiSourceOf(src))
	}
	return oapi.ListSources200JSONResponse{Items: items}, nil
}

func (s *Server) CreateSource(ctx context.Context, req oapi.CreateSourceRequestObject) (oapi.CreateSourceResponseObject, error) {
	ns := source.NewSource{Name: req.Body.Name, URL: req.Body.Url, SignedOnly: req.Body.SignedOnly != nil && *req.Body.SignedOnly}
	if req.Body.Kind != nil {
		ns.Kind = *req.Body.Kind
	}
	ns.Keys = sourceKeys(req.Body.Keys)
	src, err := s.Sources.Add(ctx, ns, httpx.APIUser(ctx).Username)
	if err != nil {
		return nil, err
	}
	return oapi.CreateSource201JSONResponse(apiSourceOf(src)), nil
}

func (s *Server) GetSource(ctx context.Context, req oapi.GetSourceRequestObject) (oapi.GetSourceResponseObject, error) {
	src, err := s.Sources.Get(ctx, req.Name)
	if err != nil {
		return nil, err
	}
	versions, err := s.Sources.Versions(ctx, req.Name)
	if err != nil {
		return nil, err
	}
	out := oapi.GetSource200JSONResponse{Source: apiSourceOf(src), Versions: make([]oapi.SourceVersion, 0, len(versions))}
	for _, v := range versions {
		out.Versions = append(out.Versions, oapi.SourceVersion{Tag: v.Tag, Digest: v.Digest, Status: oapi.SourceVersionStatus(v.Status),
			Reason: v.Reason, SignedBy: v.SignedBy, CheckedAt: v.CheckedAt})
	}
	return out, nil
}

func (s *Server) UpdateSource(ctx context.Context, req oapi.UpdateSourceRequestObject) (oapi.UpdateSourceResponseObject, error) {
	ch := source.Change{SignedOnly: req.Body.SignedOnly, AddKeys: sourceKeys(req.Body.AddKeys)}
	if req.Body.RemoveKeys != nil {
		ch.RemoveKeys = *req.Body.RemoveKeys
	}
	src, err := s.Sources.Update(ctx, req.Name, ch)
	if err != nil {
		return nil, err
	}
	return oapi.UpdateSource200JSONResponse(apiSourceOf(src)), nil
}

// sourceKeys are the API's keys as the service takes them.
func sourceKeys(keys *[]oapi.SourceKey) []source.Key {
	if keys == nil {
		return nil
	}
	out := make([]source.Key, 0, len(*keys))
	for _, k := range *keys {
		out = append(out, source.Key{Name: k.Name, PEM: k.Pem})
	}
	return out
}

func (s *Server) DeleteSource(ctx context.Context, req oapi.DeleteSourceRequestObject) (oapi.DeleteSourceResponseObject, error) {
	if err := s.Sources.Delete(ctx, req.Name); err != nil {
		return nil, err
	}
	return oapi.DeleteSource204Response{}, nil
}

func (s *Server) SyncSource(ctx context.Context, req oapi.SyncSourceRequestObject) (oapi.SyncSourceResponseObject, error) {
	if err := s.Sources.RequestSync(ctx, req.Name); err != nil {
		return nil, err
	}
	return oapi.SyncSource202Response{}, nil
}

// apiSourceOf is the API's view of a source.
func apiSourceOf(src source.Source) oapi.Source {
	out := oapi.Source{Name: src.Name, Kind: oapi.SourceKind(src.Kind), Url: src.URL, SignedOnly: src.SignedOnly, Keys: make([]oapi.SourceKey, 0, len(src.Keys)),
		CreatedAt: src.CreatedAt, CreatedBy: src.CreatedBy, NextSyncAt: src.NextSyncAt, SyncError: src.SyncError}
	for _, k := range src.Keys {
		out.Keys = append(out.Keys, oapi.SourceKey{Name: k.Name, Pem: k.PEM})
	}
	if !src.SyncedAt.IsZero() {
		out.SyncedAt = &src.SyncedAt
	}
	return out
}
